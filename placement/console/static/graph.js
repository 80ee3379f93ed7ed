// An action plan's DAG laid out in layers, and drawn as SVG.
//
// An action's layer is the length of the longest path of parents above it
// (no parents: layer 0), so every edge goes from a lower layer to a higher
// one and the weight planner's chunks come out as the columns. Within a
// layer, actions sit in the order of their parents' places (then plan order),
// which keeps edges from crossing much.

import { svg } from "./ui.js";

const NODE_W = 190;
const NODE_H = 46;
const GAP_X = 70;
const GAP_Y = 18;
const PAD = 16;
const HEAD = 28;

/** {uuid: layer} for `actions` (each with uuid and parents, in plan order). */
export function layers(actions) {
  const byUuid = new Map(actions.map((a) => [a.uuid, a]));
  const layer = new Map();
  const visit = (action, seen) => {
    if (layer.has(action.uuid)) return layer.get(action.uuid);
    if (seen.has(action.uuid)) throw new Error(`the plan's parents make a cycle at ${action.uuid}`);
    seen.add(action.uuid);
    let deepest = -1;
    for (const parent of action.parents) {
      if (byUuid.has(parent)) deepest = Math.max(deepest, visit(byUuid.get(parent), seen));
    }
    layer.set(action.uuid, deepest + 1);
    return deepest + 1;
  };
  for (const action of actions) visit(action, new Set());
  return layer;
}

/** Positions: {nodes: [{action, layer, x, y}], edges: [{from, to}], width, height, columns}. */
export function layout(actions) {
  const layerOf = layers(actions);
  const columns = [];
  actions.forEach((action, position) => {
    const l = layerOf.get(action.uuid);
    (columns[l] ??= []).push({ action, position });
  });
  const row = new Map();
  for (const column of columns) {
    const place = (entry) => {
      const rows = entry.action.parents.filter((p) => row.has(p)).map((p) => row.get(p));
      return rows.length ? rows.reduce((a, b) => a + b, 0) / rows.length : entry.position;
    };
    column.sort((a, b) => place(a) - place(b) || a.position - b.position);
    column.forEach((entry, index) => row.set(entry.action.uuid, index));
  }
  const nodes = actions.map((action) => {
    const l = layerOf.get(action.uuid);
    return {
      action,
      layer: l,
      x: GAP_X / 2 + l * (NODE_W + GAP_X),
      y: PAD + HEAD + row.get(action.uuid) * (NODE_H + GAP_Y),
    };
  });
  const known = new Set(actions.map((a) => a.uuid));
  const edges = actions.flatMap((action) =>
    action.parents.filter((p) => known.has(p)).map((parent) => ({ from: parent, to: action.uuid })),
  );
  const tallest = Math.max(1, ...columns.map((c) => c.length));
  return {
    nodes,
    edges,
    columns: columns.length,
    width: columns.length * (NODE_W + GAP_X),
    height: PAD * 2 + HEAD + tallest * NODE_H + (tallest - 1) * GAP_Y,
  };
}

/** What an action acts on, for its label. */
export function target(action) {
  const p = action.input_parameters ?? {};
  if (p.resource_name) return p.resource_name;
  if (p.resource_id) return p.resource_id;
  if (action.action_type === "sleep") return `${p.duration} s`;
  if (p.message) return p.message;
  return "";
}

function clip(text, length) {
  return text.length > length ? `${text.slice(0, length - 1)}…` : text;
}

/** The SVG of a plan's graph; nodes call `hover(uuid, event)` / `hover(null)`. */
export function draw(actions, hover) {
  const shape = layout(actions);
  const byUuid = new Map(shape.nodes.map((n) => [n.action.uuid, n]));
  const root = svg("svg", {
    class: "graph",
    width: shape.width,
    height: shape.height,
    viewBox: `0 0 ${shape.width} ${shape.height}`,
    role: "img",
    "aria-label": `action plan graph: ${actions.length} actions in ${shape.columns} layers`,
  });
  root.append(
    svg(
      "defs",
      {},
      svg(
        "marker",
        {
          id: "arrow",
          viewBox: "0 0 10 10",
          refX: 9,
          refY: 5,
          markerWidth: 7,
          markerHeight: 7,
          orient: "auto-start-reverse",
        },
        svg("path", { d: "M 0 0 L 10 5 L 0 10 z", class: "arrowhead" }),
      ),
    ),
  );
  for (let l = 0; l < shape.columns; l += 1) {
    const x = l * (NODE_W + GAP_X) + 4;
    root.append(
      svg("rect", {
        class: `layer-band${l % 2 ? " odd" : ""}`,
        x,
        y: 4,
        width: NODE_W + GAP_X - 8,
        height: shape.height - 8,
        rx: 6,
        dataset: { layer: String(l) },
      }),
      svg(
        "text",
        { class: "layer-label", x: x + (NODE_W + GAP_X - 8) / 2, y: PAD + 10, "text-anchor": "middle" },
        `layer ${l}`,
      ),
    );
  }
  for (const edge of shape.edges) {
    const a = byUuid.get(edge.from);
    const b = byUuid.get(edge.to);
    const x1 = a.x + NODE_W;
    const y1 = a.y + NODE_H / 2;
    const x2 = b.x;
    const y2 = b.y + NODE_H / 2;
    const bend = (x2 - x1) / 2;
    root.append(
      svg("path", {
        class: "edge",
        d: `M ${x1} ${y1} C ${x1 + bend} ${y1}, ${x2 - bend} ${y2}, ${x2} ${y2}`,
        "marker-end": "url(#arrow)",
        dataset: { from: edge.from, to: edge.to },
      }),
    );
  }
  for (const node of shape.nodes) {
    const { action } = node;
    const group = svg(
      "g",
      {
        class: `node state-${action.state}`,
        transform: `translate(${node.x} ${node.y})`,
        tabindex: 0,
        dataset: {
          uuid: action.uuid,
          state: action.state,
          layer: String(node.layer),
          type: action.action_type,
        },
        onmouseenter: (event) => hover(action.uuid, event),
        onmouseleave: () => hover(null),
        onfocus: (event) => hover(action.uuid, event),
        onblur: () => hover(null),
      },
      svg("rect", { width: NODE_W, height: NODE_H, rx: 8 }),
      svg("text", { x: 10, y: 19, class: "type" }, clip(action.action_type, 24)),
      svg("text", { x: 10, y: 36, class: "target" }, clip(target(action), 25)),
    );
    root.append(group);
  }
  return root;
}
