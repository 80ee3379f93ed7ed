// The console's shell: hash routes (#/capacity, #/why, #/plans), one ES module
// per page, and who the console is talking as.
//
// A page module exports `mount(root, params, signal)`: it draws into `root`
// (a fresh element), reads its state from `params` (the hash's query, a
// URLSearchParams) and stops its work (polling, pending draws) once `signal`
// is aborted, which happens when the user goes to another page.

import * as api from "./api.js";
import { tokenDialog } from "./ui.js";

const PAGES = {
  capacity: () => import("./capacity.js"),
  why: () => import("./why.js"),
  plans: () => import("./plans.js"),
};

let running = null;

function parseHash() {
  const [page, query] = location.hash.replace(/^#\/?/, "").split("?");
  return [page, new URLSearchParams(query ?? "")];
}

async function showIdentity() {
  const { auth_strategy: strategy } = await api.settings();
  const token = api.storedToken() ?? (strategy === "noauth2" ? "admin" : null);
  const shown = token === null ? "no token" : strategy === "noauth2" ? token : `…${token.slice(-6)}`;
  document.getElementById("identity").textContent = `${strategy} · ${shown}`;
}

async function route() {
  const [page, params] = parseHash();
  if (!(page in PAGES)) {
    location.replace("#/capacity");
    return;
  }
  running?.abort();
  const controller = new AbortController();
  running = controller;
  for (const link of document.querySelectorAll("nav a")) {
    link.classList.toggle("current", link.dataset.page === page);
  }
  const root = document.createElement("div");
  root.className = `page page-${page}`;
  document.getElementById("page").replaceChildren(root);
  const box = document.getElementById("error");
  api.showError(box, null);
  try {
    const module = await PAGES[page]();
    await module.mount(root, params, controller.signal);
  } catch (error) {
    if (!controller.signal.aborted) api.showError(box, error);
  }
  showIdentity();
}

async function changeToken() {
  try {
    api.setToken(await tokenDialog("The token to send as X-Auth-Token from now on."));
  } catch {
    return;
  }
  route();
}

api.onTokenNeeded(async (reason) => {
  const token = await tokenDialog(reason);
  showIdentity();
  return token;
});
document.getElementById("change-token").addEventListener("click", changeToken);
window.addEventListener("hashchange", route);
route();
