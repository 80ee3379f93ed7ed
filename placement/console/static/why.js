// "Why no candidate?": an allocation-candidates request, its candidates, and
// for every provider or tree left out the first rule that excluded it, with
// the numbers. One call of GET /diagnostics/allocation_candidates (the
// candidates engine's own explanation); the request is kept in the page's
// hash (#/why?resources=VCPU:1&...), so a link reproduces it.

import * as api from "./api.js";
import { el, number, replaceParams } from "./ui.js";

/** The rules in the order the service tries them, per level, with a title. */
const RULES = {
  request: [
    ["root_required", "No root has the root_required traits"],
    ["not_in_aggregate", "No provider in the member_of aggregates"],
    ["outside_tree", "The in_tree provider does not exist"],
    ["no_provider", "A group matches nothing on its own"],
  ],
  tree: [
    ["root_required", "Root lacks root_required"],
    ["outside_tree", "Outside in_tree"],
    ["not_shared", "Sharing provider not shared with the tree"],
    ["no_provider", "No provider for a group"],
    ["capacity", "Groups' amounts add up beyond capacity"],
    ["missing_trait", "Required traits not met by the tree"],
    ["one_provider_per_tree", "One provider per tree (before 1.29)"],
    ["isolate", "group_policy=isolate"],
    ["same_subtree", "same_subtree"],
  ],
  provider: [
    ["no_inventory", "No inventory of the class"],
    ["capacity", "Capacity exhausted"],
    ["min_unit", "Below min_unit"],
    ["max_unit", "Above max_unit"],
    ["step_size", "Not a multiple of step_size"],
    ["missing_trait", "Missing required trait"],
    ["forbidden_trait", "Forbidden trait"],
    ["not_in_aggregate", "Not in the aggregate"],
    ["forbidden_aggregate", "In a forbidden aggregate"],
    ["outside_tree", "Outside in_tree"],
  ],
};
const LEVELS = [
  ["request", "The request"],
  ["tree", "Trees"],
  ["provider", "Providers"],
];
const GROUP_KEYS = ["resources", "required", "member_of", "in_tree"];
const SUFFIXED = /^(resources|required|member_of|in_tree)([a-zA-Z0-9_-]{1,64})$/;

function field(label, name, value, hint, attrs = {}) {
  return el(
    "label",
    {},
    label,
    el("input", { name, value: value ?? "", placeholder: hint, autocomplete: "off", ...attrs }),
  );
}

/** One suffixed group's row of inputs. */
function groupRow(values = {}) {
  const row = el(
    "div",
    { class: "why-group" },
    field("Suffix", "suffix", values.suffix, "_GPU", { size: 8 }),
    field("resources", "resources", values.resources, "VGPU:1"),
    field("required", "required", values.required, "CUSTOM_A,!CUSTOM_B"),
    field("member_of", "member_of", values.member_of, "in:agg1,agg2"),
    field("in_tree", "in_tree", values.in_tree, "provider uuid"),
  );
  row.append(
    el(
      "button",
      { type: "button", class: "remove", title: "Remove this group", onclick: () => row.remove() },
      "×",
    ),
  );
  return row;
}

/** The form's request as query pairs, and the microversion to send. */
function readForm(form) {
  const data = new FormData(form);
  const pairs = [];
  const add = (key, value) => {
    if (String(value ?? "").trim()) pairs.push([key, String(value).trim()]);
  };
  for (const key of GROUP_KEYS) add(key, data.get(key));
  for (const row of form.querySelectorAll(".why-group")) {
    const suffix = row.querySelector("[name=suffix]").value.trim();
    if (!suffix) continue;
    for (const key of GROUP_KEYS) add(`${key}${suffix}`, row.querySelector(`[name=${key}]`).value);
  }
  add("group_policy", data.get("group_policy"));
  for (const set of String(data.get("same_subtree") ?? "").split(/\s+/)) add("same_subtree", set);
  add("root_required", data.get("root_required"));
  add("limit", data.get("limit"));
  return { pairs, microversion: String(data.get("microversion") || "latest").trim() };
}

function buildForm(params, onAsk) {
  const groups = new Map();
  for (const [key, value] of params) {
    const match = SUFFIXED.exec(key);
    if (match) {
      const values = groups.get(match[2]) ?? { suffix: match[2] };
      values[match[1]] = value;
      groups.set(match[2], values);
    }
  }
  const rows = el(
    "div",
    { class: "why-groups" },
    [...groups.values()].map((values) => groupRow(values)),
  );
  const policy = el(
    "select",
    { name: "group_policy" },
    ["", "none", "isolate"].map((value) =>
      el(
        "option",
        { value, selected: params.get("group_policy") === value && value !== "" },
        value || "(not given)",
      ),
    ),
  );
  const form = el(
    "form",
    { class: "why-form" },
    el(
      "fieldset",
      {},
      el("legend", {}, "Unsuffixed group (one tree)"),
      field("resources", "resources", params.get("resources"), "VCPU:2,MEMORY_MB:2048"),
      field("required", "required", params.get("required"), "HW_CPU_X86_AVX,!CUSTOM_SLOW"),
      field("member_of", "member_of", params.get("member_of"), "aggregate uuid, in:a,b or !a"),
      field("in_tree", "in_tree", params.get("in_tree"), "provider uuid"),
    ),
    el(
      "fieldset",
      {},
      el("legend", {}, "Granular groups (one provider each)"),
      rows,
      el(
        "button",
        { type: "button", class: "add-group", onclick: () => rows.append(groupRow()) },
        "+ Add group",
      ),
    ),
    el(
      "fieldset",
      {},
      el("legend", {}, "The whole request"),
      el("label", {}, "group_policy", policy),
      field(
        "same_subtree",
        "same_subtree",
        params.getAll("same_subtree").join(" "),
        "_A,_B (sets apart by spaces)",
      ),
      field("root_required", "root_required", params.get("root_required"), "COMPUTE_STATUS_DISABLED…"),
      field("limit", "limit", params.get("limit"), "all", { type: "number", min: 1, size: 6 }),
      field("Microversion", "microversion", params.get("version") ?? "latest", "latest", { size: 6 }),
      el("button", { type: "submit", class: "primary" }, "Explain"),
    ),
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    onAsk(readForm(form));
  });
  return form;
}

/** The numbers behind an explanation as chips; provider uuids by name. */
function numbersChips(numbers, names) {
  const named = (v) => names[v] ?? v;
  return Object.entries(numbers ?? {}).map(([key, value]) => {
    let shown = value;
    if (Array.isArray(value))
      shown = value.map((v) => (Array.isArray(v) ? `(${v.join(" | ")})` : named(v))).join(", ");
    else if (value && typeof value === "object") {
      shown = Object.entries(value)
        .map(
          ([k, v]) =>
            `${named(k)} ${
              typeof v === "object"
                ? Object.entries(v)
                    .map(([a, b]) => `${a} ${b}`)
                    .join(" ")
                : v
            }`,
        )
        .join("; ");
    } else if (typeof value === "number") shown = number(value);
    return el("span", { class: "chip number", dataset: { key } }, `${key}: ${shown}`);
  });
}

function groupLabel(group) {
  if (group === null || group === undefined) return null;
  return group === "" ? "unsuffixed group" : `group ${group}`;
}

function explanationItem(explanation, names) {
  const who =
    explanation.level === "request"
      ? null
      : el(
          "span",
          { class: "who" },
          el("span", { class: "name" }, explanation.name ?? names[explanation.uuid] ?? explanation.uuid),
          explanation.root_uuid && explanation.root_uuid !== explanation.uuid
            ? el("span", { class: "root" }, ` in ${explanation.root_name}`)
            : null,
        );
  const tags = [groupLabel(explanation.group), explanation.resource_class].filter(Boolean);
  return el(
    "li",
    {
      class: "explanation",
      dataset: {
        rule: explanation.rule,
        level: explanation.level,
        name: explanation.name ?? "",
        group: explanation.group ?? "",
      },
    },
    who,
    tags.map((tag) => el("span", { class: "chip tag" }, tag)),
    el("span", { class: "detail" }, explanation.detail),
    el("div", { class: "chips" }, numbersChips(explanation.numbers, names)),
  );
}

function explanationsSection(document) {
  const names = document.provider_names ?? {};
  const section = el("section", { class: "why-explanations" }, el("h3", {}, "Why not"));
  if (!document.explanations.length) {
    section.append(
      el(
        "p",
        { class: "empty" },
        "Nothing was left out: every tree with a provider of these classes qualifies.",
      ),
    );
  }
  for (const [level, title] of LEVELS) {
    const mine = document.explanations.filter((e) => e.level === level);
    if (!mine.length) continue;
    const part = el("div", { class: "why-level", dataset: { level } }, el("h4", {}, title));
    for (const [rule, ruleTitle] of RULES[level]) {
      const ofRule = mine.filter((e) => e.rule === rule);
      if (!ofRule.length) continue;
      part.append(
        el(
          "details",
          { class: "why-rule", open: true, dataset: { rule, level } },
          el(
            "summary",
            {},
            el("code", {}, rule),
            ` ${ruleTitle} `,
            el("span", { class: "count" }, String(ofRule.length)),
          ),
          el(
            "ul",
            {},
            ofRule.map((e) => explanationItem(e, names)),
          ),
        ),
      );
    }
    section.append(part);
  }
  if (document.explanations_omitted) {
    section.append(
      el(
        "p",
        { class: "empty" },
        `${number(document.explanations_omitted)} more explanations were left out.`,
      ),
    );
  }
  return section;
}

function candidatesSection(document) {
  const names = document.provider_names ?? {};
  const requests = document.allocation_requests ?? [];
  const section = el(
    "section",
    { class: "why-candidates" },
    el("h3", {}, `Candidates `, el("span", { class: "count" }, String(requests.length))),
  );
  if (!requests.length) {
    section.append(el("p", { class: "empty" }, "No candidate."));
    return section;
  }
  const list = el("ol", { class: "candidates" });
  for (const request of requests) {
    const allocations = Array.isArray(request.allocations)
      ? request.allocations.map((a) => [a.resource_provider.uuid, a.resources])
      : Object.entries(request.allocations).map(([uuid, a]) => [uuid, a.resources]);
    const groupsOf = {};
    for (const [suffix, providers] of Object.entries(request.mappings ?? {})) {
      for (const provider of providers)
        (groupsOf[provider] ??= []).push(suffix === "" ? "unsuffixed" : suffix);
    }
    list.append(
      el(
        "li",
        { class: "candidate" },
        allocations.map(([uuid, resources]) =>
          el(
            "span",
            { class: "allocation", dataset: { uuid } },
            el("span", { class: "name", title: uuid }, names[uuid] ?? uuid),
            " ",
            Object.entries(resources).map(([rc, amount]) =>
              el("span", { class: "chip" }, `${rc} ${number(amount)}`),
            ),
            groupsOf[uuid] ? el("span", { class: "groups" }, ` (${groupsOf[uuid].join(", ")})`) : null,
          ),
        ),
      ),
    );
  }
  section.append(list);
  return section;
}

function treesSection(document) {
  const trees = document.trees ?? [];
  const good = trees.filter((t) => t.qualifies).length;
  return el(
    "section",
    { class: "why-trees" },
    el("h3", {}, `Trees: ${good} of ${trees.length} qualify`),
    el(
      "div",
      { class: "chips" },
      trees.map((tree) =>
        el(
          "span",
          {
            class: `chip tree-verdict ${tree.qualifies ? "yes" : "no"}`,
            title: tree.uuid,
            dataset: { name: tree.name, qualifies: String(tree.qualifies) },
          },
          `${tree.qualifies ? "✓" : "✗"} ${tree.name}`,
        ),
      ),
    ),
  );
}

export async function mount(root, params, signal) {
  const results = el("div", { class: "why-results" });
  const alert = el("div", { class: "error", role: "alert", hidden: true });

  async function ask({ pairs, microversion }) {
    const query = new URLSearchParams(pairs);
    const shown = new URLSearchParams(pairs);
    if (microversion !== "latest") shown.set("version", microversion);
    replaceParams("why", shown);
    api.showError(alert, null);
    root.classList.add("loading");
    try {
      const document = await api.placement(`diagnostics/allocation_candidates?${query}`, { microversion });
      if (signal?.aborted) return;
      results.replaceChildren(
        candidatesSection(document),
        treesSection(document),
        explanationsSection(document),
      );
    } catch (error) {
      if (signal?.aborted) return;
      results.replaceChildren();
      api.showError(alert, error);
    } finally {
      root.classList.remove("loading");
    }
  }

  root.append(
    el("h2", { class: "title" }, "Why no candidate?"),
    el(
      "p",
      { class: "summary" },
      "An allocation-candidates request, as nova's scheduler sends it: the candidates found and, for every provider or tree left out, the first rule that excluded it.",
    ),
    buildForm(params, ask),
    alert,
    results,
  );
  const asked = [...params.keys()].some((key) => key !== "version");
  if (asked) {
    const pairs = [...params].filter(([key]) => key !== "version");
    await ask({ pairs, microversion: params.get("version") ?? "latest" });
  }
}
