// Action plans: the list of plans, and the chosen plan's DAG as a live graph
// (actions coloured by state, parents as edges, layers as columns), with
// start and cancel buttons. Everything goes through Watcher's /v1 API, as
// python-watcherclient does: POST /v1/action_plans/{uuid}/start, and PATCH
// /state to CANCELLING (an ONGOING plan) or CANCELLED (one not started).
// The page polls while it is open, so the graph follows the applier. Beside
// the plans, the recurring (CONTINUOUS and EVENT) audits: how often each runs,
// its state, its next run and its latest plans, as the audit runner leaves them.

import * as api from "./api.js";
import * as graph from "./graph.js";
import { confirmDialog, el, replaceParams } from "./ui.js";

const POLL_MS = 1000;
const STATES = ["PENDING", "ONGOING", "SUCCEEDED", "FAILED", "CANCELLING", "CANCELLED", "SKIPPED"];
const STARTABLE = new Set(["RECOMMENDED"]);
const CANCELLABLE = new Set(["RECOMMENDED", "PENDING", "ONGOING"]);
const SETTLED = new Set(["SUCCEEDED", "FAILED", "CANCELLED", "SUPERSEDED", "DELETED"]);
const RECURRING = new Set(["CONTINUOUS", "EVENT"]);
/** How many of a recurring audit's plans are listed, the newest first. */
const AUDIT_PLANS = 5;

/** Every item of a /v1 collection (following the list's `next` links). */
async function everyPage(path, key) {
  const found = [];
  while (path) {
    const page = await api.infraOptim(path);
    found.push(...page[key]);
    path = page.next
      ? new URL(page.next).pathname.replace(api.ROOT.pathname, "") + new URL(page.next).search
      : null;
  }
  return found;
}

/** Every action of a plan, in plan order. */
function actionsOf(planUuid) {
  return everyPage(`v1/actions/detail?action_plan_uuid=${planUuid}`, "actions");
}

/** The recurring audits, the newest first, each with its latest plans. The
 * API has no filter by type, so every audit is read and the others dropped. */
async function recurringAudits() {
  const audits = await everyPage("v1/audits/detail?sort_dir=desc", "audits");
  return Promise.all(
    audits
      .filter((audit) => RECURRING.has(audit.audit_type))
      .map(async (audit) => {
        const { action_plans: plans } = await api.infraOptim(
          `v1/action_plans/detail?audit_uuid=${audit.uuid}&sort_dir=desc&limit=${AUDIT_PLANS}`,
        );
        return { audit, plans };
      }),
  );
}

/** When an audit runs: every N seconds, on a cron expression, or on its webhook. */
function schedule(audit) {
  if (audit.audit_type === "EVENT") return "on its webhook";
  return /^\d+$/.test(audit.interval ?? "") ? `every ${audit.interval} s` : `cron ${audit.interval}`;
}

/** The audit's next run as the API has it (UTC, no offset), or a dash. */
function nextRun(audit) {
  return audit.next_run_time ? `${audit.next_run_time.slice(0, 19).replace("T", " ")} UTC` : "—";
}

function shortUuid(uuid) {
  return uuid.slice(0, 8);
}

function legend() {
  return el(
    "div",
    { class: "legend" },
    STATES.map((state) => el("span", { class: `swatch state-${state}` }, state.toLowerCase())),
  );
}

export async function mount(root, params, signal) {
  let selected = params.get("plan");
  let drawnShape = "";
  /** The latest answer for each action of the shown plan, for the tooltip. */
  const latest = new Map();
  const errorBox = el("div", { class: "error", role: "alert", hidden: true });
  const list = el("ul", { class: "plan-list" });
  const audits = el("ul", { class: "audit-list" });
  const detail = el("section", { class: "plan-detail" });
  const tip = el("div", { class: "tip", role: "tooltip", hidden: true });
  root.append(
    el("h2", { class: "title" }, "Action plans"),
    errorBox,
    el(
      "div",
      { class: "plans" },
      el("aside", {}, el("h3", {}, "Plans"), list, el("h3", {}, "Continuous audits"), audits),
      detail,
    ),
    tip,
  );

  function hover(uuid, event) {
    const action = latest.get(uuid);
    if (!action) {
      tip.hidden = true;
      return;
    }
    tip.replaceChildren(
      el("strong", {}, action.action_type),
      el("div", {}, `target: ${graph.target(action) || "—"}`),
      el("div", {}, `state: ${action.state}`),
      el(
        "div",
        { class: "message" },
        action.status_message ? `status: ${action.status_message}` : "no status message",
      ),
      el("div", { class: "uuid" }, action.uuid),
    );
    const box = event.currentTarget.getBoundingClientRect();
    tip.style.left = `${box.left + window.scrollX}px`;
    tip.style.top = `${box.bottom + window.scrollY + 6}px`;
    tip.hidden = false;
  }

  function select(uuid) {
    selected = uuid;
    drawnShape = "";
    tick = 0;
    replaceParams("plans", new URLSearchParams({ plan: uuid }));
    refresh();
  }

  function drawList(plans) {
    list.replaceChildren(...plans.map((plan) => planButton(plan, ` · ${plan.strategy_name ?? "?"}`)));
    if (!plans.length) list.append(el("li", { class: "empty" }, "No action plans yet: an audit makes one."));
  }

  function planButton(plan, label) {
    return el(
      "li",
      { class: plan.uuid === selected ? "current" : "", dataset: { uuid: plan.uuid, state: plan.state } },
      el(
        "button",
        { type: "button", onclick: () => select(plan.uuid) },
        el("span", { class: `badge state-${plan.state}` }, plan.state),
        ` ${shortUuid(plan.uuid)}${label}`,
      ),
    );
  }

  function drawAudits(found) {
    if (found instanceof Error) {
      // A reader the policy lets see plans but not audits still sees the plans.
      const refused = el("li", { class: "error", role: "alert" });
      api.showError(refused, found);
      audits.replaceChildren(refused);
      return;
    }
    audits.replaceChildren(
      ...found.map(({ audit, plans }) =>
        el(
          "li",
          { dataset: { uuid: audit.uuid, state: audit.state } },
          el(
            "div",
            { class: "audit-head" },
            el("span", { class: `badge state-${audit.state}` }, audit.state),
            ` ${audit.name} · ${audit.strategy_name ?? "auto"}`,
          ),
          el(
            "div",
            { class: "audit-when" },
            el("span", { class: "schedule" }, schedule(audit)),
            " · next run ",
            el("span", { class: "next-run" }, nextRun(audit)),
          ),
          el(
            "ul",
            { class: "plan-list audit-plans" },
            plans.length
              ? plans.map((plan) => planButton(plan, ""))
              : el("li", { class: "empty" }, "No plan yet."),
          ),
        ),
      ),
    );
    if (!found.length) {
      audits.append(el("li", { class: "empty" }, "None yet: CONTINUOUS and EVENT audits show here."));
    }
  }

  async function act(plan, verb) {
    const buttonsError = detail.querySelector(".plan-error");
    const count = detail.querySelectorAll("g.node").length;
    const confirmed =
      verb === "start"
        ? await confirmDialog(
            "Start this action plan?",
            `Plan ${plan.uuid}: its ${count} actions will be applied by the applier.`,
            "Start",
          )
        : await confirmDialog(
            "Cancel this action plan?",
            `Plan ${plan.uuid} (${plan.state}): actions not yet run will be cancelled.`,
            "Cancel plan",
          );
    if (!confirmed) return;
    try {
      if (verb === "start") {
        await api.infraOptim(`v1/action_plans/${plan.uuid}/start`, { method: "POST" });
      } else {
        const state = plan.state === "ONGOING" ? "CANCELLING" : "CANCELLED";
        await api.infraOptim(`v1/action_plans/${plan.uuid}`, {
          method: "PATCH",
          body: [{ op: "replace", path: "/state", value: state }],
        });
      }
      api.showError(buttonsError, null);
    } catch (error) {
      api.showError(buttonsError, error);
    }
    refresh();
  }

  function drawDetail(plan, actions) {
    const shape = JSON.stringify(actions.map((a) => [a.uuid, a.parents]));
    latest.clear();
    for (const action of actions) latest.set(action.uuid, action);
    const done = actions.filter((a) => a.state === "SUCCEEDED").length;
    const header = el(
      "div",
      { class: "plan-head", dataset: { uuid: plan.uuid, state: plan.state } },
      el("h3", {}, `Plan ${plan.uuid}`),
      el(
        "p",
        {},
        el("span", { class: `badge state-${plan.state}` }, plan.state),
        ` ${plan.strategy_name ?? ""} · audit ${shortUuid(plan.audit_uuid)} · ${done}/${actions.length} actions succeeded`,
      ),
      plan.status_message ? el("p", { class: "status-message" }, plan.status_message) : null,
      el(
        "div",
        { class: "buttons" },
        el(
          "button",
          {
            type: "button",
            class: "start primary",
            disabled: !STARTABLE.has(plan.state),
            onclick: () => act(plan, "start"),
          },
          "Start",
        ),
        el(
          "button",
          {
            type: "button",
            class: "cancel",
            disabled: !CANCELLABLE.has(plan.state),
            onclick: () => act(plan, "cancel"),
          },
          "Cancel",
        ),
      ),
    );
    for (const listed of root.querySelectorAll(`.plan-list li[data-uuid="${plan.uuid}"]`)) {
      if (listed.dataset.state === plan.state) continue;
      listed.dataset.state = plan.state;
      const badge = listed.querySelector(".badge");
      badge.className = `badge state-${plan.state}`;
      badge.textContent = plan.state;
    }
    const oldHead = detail.querySelector(".plan-head");
    const keptError =
      detail.querySelector(".plan-error") ??
      el("div", { class: "error plan-error", role: "alert", hidden: true });
    if (shape !== drawnShape) {
      drawnShape = shape;
      detail.replaceChildren(
        header,
        keptError,
        legend(),
        el("div", { class: "graph-box" }, graph.draw(actions, hover)),
      );
      return;
    }
    oldHead.replaceWith(header);
    for (const action of actions) {
      const node = detail.querySelector(`g.node[data-uuid="${action.uuid}"]`);
      node.dataset.state = action.state;
      node.setAttribute("class", `node state-${action.state}`);
    }
  }

  let timer = null;
  let tick = 0;
  let busy = false;
  let again = false;
  async function refresh() {
    if (busy) {
      again = true;
      return;
    }
    busy = true;
    clearTimeout(timer);
    try {
      await poll();
    } finally {
      busy = false;
    }
    if (again) {
      again = false;
      refresh();
    }
  }

  async function poll() {
    if (signal.aborted) return;
    let settled = true;
    try {
      if (tick % 3 === 0 || !list.children.length) {
        const [{ action_plans: plans }, recurring] = await Promise.all([
          api.infraOptim("v1/action_plans/detail?sort_dir=desc&limit=50"),
          recurringAudits().catch((error) => error),
        ]);
        if (signal.aborted) return;
        drawList(plans);
        drawAudits(recurring);
        if (!selected && plans.length) selected = plans[0].uuid;
      }
      if (selected) {
        const [plan, actions] = await Promise.all([
          api.infraOptim(`v1/action_plans/${selected}`),
          actionsOf(selected),
        ]);
        if (signal.aborted) return;
        drawDetail(plan, actions);
        settled = SETTLED.has(plan.state);
      }
      api.showError(errorBox, null);
    } catch (error) {
      if (signal.aborted) return;
      api.showError(errorBox, error);
    }
    tick += 1;
    timer = setTimeout(refresh, settled ? POLL_MS * 3 : POLL_MS);
  }
  signal.addEventListener("abort", () => clearTimeout(timer));
  await refresh();
}
