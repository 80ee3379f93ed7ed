// Capacity: every provider tree drawn as a tree, a bar per resource class
// (used / capacity, capacity = (total - reserved) x allocation_ratio as the
// service computes it), traits and aggregates; filters, totals per class,
// sorting by fullest. One page of trees comes from one call of
// GET /console/api/capacity, whatever the size of the cloud.

import * as api from "./api.js";
import { el, number, percent, replaceParams } from "./ui.js";

const FILTERS = ["name", "required", "member_of", "resource_class", "sort"];
const PAGE_SIZE = 50;
const TRAITS_SHOWN = 6;
export const PAINTED = "console:capacity:painted";

function level(ratio) {
  if (ratio >= 0.9) return "high";
  if (ratio >= 0.7) return "mid";
  return "low";
}

/** A bar: the used share of the capacity, with both numbers. */
function bar(resourceClass, used, capacity, title) {
  const ratio = capacity > 0 ? used / capacity : used > 0 ? 1 : 0;
  const fillEl = el("span", { class: `fill ${level(ratio)}` });
  fillEl.style.width = `${Math.min(100, ratio * 100)}%`;
  return el(
    "div",
    { class: "bar", title, dataset: { rc: resourceClass, used: String(used), capacity: String(capacity) } },
    el("span", { class: "rc" }, resourceClass),
    el("span", { class: "track" }, fillEl),
    el("span", { class: "numbers" }, `${number(used)} / ${number(capacity)}`),
  );
}

function chips(kind, values, pick) {
  const shown = values
    .slice(0, TRAITS_SHOWN)
    .map((value) =>
      el(
        "button",
        {
          type: "button",
          class: `chip ${kind}`,
          title: `Filter by this ${kind}`,
          onclick: () => pick(value),
        },
        value,
      ),
    );
  if (values.length > TRAITS_SHOWN) {
    shown.push(
      el(
        "span",
        { class: "chip more", title: values.slice(TRAITS_SHOWN).join("\n") },
        `+${values.length - TRAITS_SHOWN} more`,
      ),
    );
  }
  return shown;
}

function providerItem(provider, pick, filtered) {
  const bars = Object.entries(provider.resources).map(([rc, r]) =>
    bar(
      rc,
      r.used,
      r.capacity,
      `${rc}: ${number(r.used)} used of ${number(r.capacity)} (total ${number(r.total)}, reserved ${number(r.reserved)}, allocation ratio ${r.allocation_ratio})`,
    ),
  );
  return el(
    "li",
    {
      class: `provider${filtered && provider.matched ? " matched" : ""}`,
      dataset: { uuid: provider.uuid, name: provider.name, depth: String(provider.depth) },
    },
    el(
      "div",
      { class: "card" },
      el(
        "div",
        { class: "head" },
        el("span", { class: "name" }, provider.name),
        el("span", { class: "uuid" }, provider.uuid),
      ),
      bars.length ? el("div", { class: "bars" }, bars) : el("div", { class: "empty" }, "no inventory"),
      provider.traits.length || provider.aggregates.length
        ? el(
            "div",
            { class: "chips" },
            chips("trait", provider.traits, (t) => pick("required", t)),
            chips("aggregate", provider.aggregates, (a) => pick("member_of", a)),
          )
        : null,
    ),
  );
}

/** One tree as nested lists, children under their parent; with `filtered`,
 * the providers that meet the filters stand out. */
function treeSection(tree, pick, filtered) {
  const items = new Map();
  const top = el("ul", { class: "providers" });
  for (const provider of tree.providers) {
    const item = providerItem(provider, pick, filtered);
    items.set(provider.uuid, item);
    const parent = items.get(provider.parent_uuid);
    if (!parent) {
      top.append(item);
      continue;
    }
    let children = parent.querySelector(":scope > ul.children");
    if (!children) {
      children = el("ul", { class: "children" });
      parent.append(children);
    }
    children.append(item);
  }
  const root = tree.providers[0];
  return el(
    "section",
    { class: "tree", dataset: { root: root.uuid, fullness: String(tree.fullness) } },
    el(
      "h3",
      {},
      root.name,
      el("span", { class: `fullness ${level(tree.fullness)}` }, `fullest at ${percent(tree.fullness)}`),
    ),
    top,
  );
}

function totalsSection(totals) {
  return Object.entries(totals).map(([rc, t]) =>
    el(
      "div",
      { class: "total" },
      bar(rc, t.used, t.capacity, `${rc} across the cloud: ${number(t.used)} used of ${number(t.capacity)}`),
    ),
  );
}

function filterForm(state, apply) {
  const input = (name, label, placeholder) =>
    el(
      "label",
      {},
      label,
      el("input", {
        name,
        value: state.get(name) ?? "",
        placeholder,
        autocomplete: "off",
        list: `${name}-choices`,
      }),
    );
  const form = el(
    "form",
    { class: "filters", onsubmit: (event) => event.preventDefault() },
    input("name", "Name", "part of a provider's name"),
    input("required", "Traits", "HW_CPU_X86_AVX2,!CUSTOM_X"),
    input("member_of", "Aggregate", "aggregate uuid, in:a,b or !a"),
    el(
      "label",
      {},
      "Resource class",
      el("select", { name: "resource_class" }, el("option", { value: "" }, "any")),
    ),
    el(
      "label",
      {},
      "Sort",
      el(
        "select",
        { name: "sort" },
        el("option", { value: "name" }, "by name"),
        el("option", { value: "fullest" }, "fullest first"),
      ),
    ),
    el("button", { type: "button", class: "clear", onclick: () => apply(new URLSearchParams()) }, "Clear"),
    el("datalist", { id: "required-choices" }),
  );
  form.elements.sort.value = state.get("sort") ?? "name";
  let typing = null;
  const changed = () => {
    const params = new URLSearchParams();
    for (const name of FILTERS) {
      const value = form.elements[name].value.trim();
      if (value && !(name === "sort" && value === "name")) params.set(name, value);
    }
    apply(params);
  };
  form.addEventListener("change", changed);
  form.elements.name.addEventListener("input", () => {
    clearTimeout(typing);
    typing = setTimeout(changed, 300);
  });
  return form;
}

/** Fill the form's choices: resource classes and the traits providers have. */
async function fillChoices(form, state) {
  const [classes, traits] = await Promise.all([
    api.placement("resource_classes"),
    api.placement("traits?associated=true"),
  ]);
  const select = form.elements.resource_class;
  for (const rc of classes.resource_classes.map((c) => c.name).sort())
    select.append(el("option", { value: rc }, rc));
  select.value = state.get("resource_class") ?? "";
  form
    .querySelector("#required-choices")
    .append(...traits.traits.sort().map((t) => el("option", { value: t })));
}

export async function mount(root, params, signal) {
  let state = new URLSearchParams(params);
  let sequence = 0;
  let painted = false;
  const errorBox = el("div", { class: "error", role: "alert", hidden: true });
  const summary = el("div", { class: "summary" });
  const totals = el("div", { class: "totals" });
  const trees = el("div", { class: "trees" });
  const pager = el("div", { class: "pager" });

  async function load() {
    const mine = ++sequence;
    root.classList.add("loading");
    let data;
    try {
      data = await api.consoleApi("capacity", state);
    } catch (error) {
      if (mine === sequence && !signal.aborted) {
        api.showError(errorBox, error);
        root.classList.remove("loading");
      }
      return;
    }
    if (mine !== sequence || signal.aborted) return;
    api.showError(errorBox, null);
    draw(data);
    root.classList.remove("loading");
    if (!painted) {
      painted = true;
      requestAnimationFrame(() => performance.mark(PAINTED));
    }
  }

  function apply(next) {
    state = next;
    replaceParams("capacity", state);
    load();
  }

  function pick(name, value) {
    const next = new URLSearchParams(state);
    next.set(name, value);
    next.delete("offset");
    form.elements[name].value = value;
    apply(next);
  }

  function draw(data) {
    const filtered = FILTERS.some((name) => name !== "sort" && state.get(name));
    const offset = data.offset;
    const last = Math.min(offset + data.trees.length, data.tree_count);
    summary.replaceChildren(
      `${number(data.provider_count)} providers in the cloud; trees ${data.tree_count ? number(offset + 1) : 0}–${number(last)} of ${number(data.tree_count)} shown`,
    );
    totals.replaceChildren(el("h2", {}, "Across the cloud"), ...totalsSection(data.totals));
    trees.replaceChildren(
      ...(data.trees.length
        ? data.trees.map((tree) => treeSection(tree, pick, filtered))
        : [el("p", { class: "empty" }, "No provider matches.")]),
    );
    const go = (to) => {
      const next = new URLSearchParams(state);
      if (to > 0) next.set("offset", String(to));
      else next.delete("offset");
      apply(next);
    };
    pager.replaceChildren(
      el(
        "button",
        {
          type: "button",
          class: "previous",
          disabled: offset === 0,
          onclick: () => go(Math.max(0, offset - data.limit)),
        },
        "‹ Previous",
      ),
      el(
        "button",
        {
          type: "button",
          class: "next",
          disabled: last >= data.tree_count,
          onclick: () => go(offset + data.limit),
        },
        "Next ›",
      ),
    );
  }

  if (!state.has("limit")) state.set("limit", String(PAGE_SIZE));
  const form = filterForm(state, (next) => {
    if (!next.has("limit")) next.set("limit", String(PAGE_SIZE));
    if (next.size === 1)
      for (const name of FILTERS) form.elements[name].value = name === "sort" ? "name" : "";
    apply(next);
  });
  root.append(el("h2", { class: "title" }, "Capacity"), form, errorBox, summary, totals, pager, trees);
  // Suggestions only: without them (a caller who may not list traits) the filters still work.
  fillChoices(form, state).catch(() => form.classList.add("no-choices"));
  await load();
}
