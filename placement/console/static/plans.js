// Action plans: the list of plans, and the chosen plan's DAG as a live graph
// (actions coloured by state, parents as edges, layers as columns), with
// start and cancel buttons. Everything goes through Watcher's /v1 API, as
// python-watcherclient does: POST /v1/action_plans/{uuid}/start, and PATCH
// /state to CANCELLING (an ONGOING plan) or CANCELLED (one not started).
// The page polls while it is open, so the graph follows the applier.

import * as api from "./api.js";
import * as graph from "./graph.js";
import { confirmDialog, el, replaceParams } from "./ui.js";

const POLL_MS = 1000;
const STATES = ["PENDING", "ONGOING", "SUCCEEDED", "FAILED", "CANCELLING", "CANCELLED", "SKIPPED"];
const STARTABLE = new Set(["RECOMMENDED"]);
const CANCELLABLE = new Set(["RECOMMENDED", "PENDING", "ONGOING"]);
const SETTLED = new Set(["SUCCEEDED", "FAILED", "CANCELLED", "SUPERSEDED", "DELETED"]);

/** Every action of a plan, in plan order (following the list's `next` links). */
async function actionsOf(planUuid) {
  const found = [];
  let path = `v1/actions/detail?action_plan_uuid=${planUuid}`;
  while (path) {
    const page = await api.infraOptim(path);
    found.push(...page.actions);
    path = page.next
      ? new URL(page.next).pathname.replace(api.ROOT.pathname, "") + new URL(page.next).search
      : null;
  }
  return found;
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
  const detail = el("section", { class: "plan-detail" });
  const tip = el("div", { class: "tip", role: "tooltip", hidden: true });
  root.append(
    el("h2", { class: "title" }, "Action plans"),
    errorBox,
    el("div", { class: "plans" }, el("aside", {}, el("h3", {}, "Plans"), list), detail),
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
    list.replaceChildren(
      ...plans.map((plan) =>
        el(
          "li",
          { class: plan.uuid === selected ? "current" : "", dataset: { uuid: plan.uuid, state: plan.state } },
          el(
            "button",
            { type: "button", onclick: () => select(plan.uuid) },
            el("span", { class: `badge state-${plan.state}` }, plan.state),
            ` ${shortUuid(plan.uuid)} · ${plan.strategy_name ?? "?"}`,
          ),
        ),
      ),
    );
    if (!plans.length) list.append(el("li", { class: "empty" }, "No action plans yet: an audit makes one."));
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
    const listed = list.querySelector(`li[data-uuid="${plan.uuid}"]`);
    if (listed && listed.dataset.state !== plan.state) {
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
        const { action_plans: plans } = await api.infraOptim("v1/action_plans/detail?sort_dir=desc&limit=50");
        if (signal.aborted) return;
        drawList(plans);
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
