// Small DOM helpers every page shares: building elements, dialogs, numbers.

const SVG_NS = "http://www.w3.org/2000/svg";

function fill(node, props, children) {
  for (const [key, value] of Object.entries(props ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "dataset") Object.assign(node.dataset, value);
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

/** An HTML element: el("a", {href: "#", class: "x", onclick: f}, "text", child). */
export function el(tag, props = {}, ...children) {
  return fill(document.createElement(tag), props, children);
}

/** An SVG element, the same way. */
export function svg(tag, props = {}, ...children) {
  return fill(document.createElementNS(SVG_NS, tag), props, children);
}

/** Whole numbers with thousands separators. */
export function number(value) {
  return Number(value).toLocaleString("en-US", { maximumFractionDigits: 2 });
}

/** 0.4567 → "46%". */
export function percent(ratio) {
  return `${Math.round(ratio * 100)}%`;
}

/** Rewrite the page's hash parameters without reloading the page. */
export function replaceParams(page, params) {
  const query = params.toString();
  history.replaceState(null, "", `#/${page}${query ? `?${query}` : ""}`);
}

function modal(id, setup) {
  const dialog = document.getElementById(id);
  return new Promise((resolve, reject) => {
    const form = dialog.querySelector("form");
    const cancel = dialog.querySelector("button[type=button]");
    const finish = (ok) => {
      form.removeEventListener("submit", onSubmit);
      cancel.removeEventListener("click", onCancel);
      dialog.removeEventListener("cancel", onCancel);
      dialog.close();
      ok();
    };
    const onSubmit = (event) => {
      event.preventDefault();
      finish(() => resolve(new FormData(form)));
    };
    const onCancel = (event) => {
      event.preventDefault();
      finish(() => reject(new Error("cancelled")));
    };
    form.addEventListener("submit", onSubmit);
    cancel.addEventListener("click", onCancel);
    dialog.addEventListener("cancel", onCancel);
    setup(dialog);
    dialog.showModal();
  });
}

/** Ask the user to confirm; resolves true (confirmed) or false. */
export async function confirmDialog(title, message, action) {
  try {
    await modal("confirm-dialog", () => {
      document.getElementById("confirm-title").textContent = title;
      document.getElementById("confirm-message").textContent = message;
      document.getElementById("confirm-ok").textContent = action;
    });
    return true;
  } catch {
    return false;
  }
}

/** Ask for a token; resolves to it, rejects when the user cancels. */
export async function tokenDialog(reason) {
  const data = await modal("token-dialog", () => {
    document.getElementById("token-reason").textContent = reason;
    const input = document.getElementById("token-input");
    input.value = "";
    input.focus();
  });
  return String(data.get("token")).trim();
}
