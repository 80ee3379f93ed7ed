// The console's one way to the API: the token, the version headers, errors.
//
// Every page calls the service through these functions, so authentication
// and error reporting are the same everywhere:
//   placement("resource_providers?name=x")           Placement API (latest microversion)
//   placement("allocation_candidates?...", {microversion: "1.39"})
//   infraOptim("v1/action_plans/detail")            Watcher's /v1 API
//   consoleApi("capacity", params)                 the console's JSON routes
// Paths are relative to the service root (no leading slash), so the console
// works under any URL prefix. A failed call throws an ApiError.

/** The service root: the console lives at <root>console/. */
export const ROOT = new URL("../", import.meta.url);

const TOKEN_KEY = "placement-console-token";

/** An answer that was not a success, with what the service said. */
export class ApiError extends Error {
  constructor(status, title, detail, requestId) {
    super(`${status} ${title}${detail ? `: ${detail}` : ""}`);
    this.status = status;
    this.title = title;
    this.detail = detail;
    this.requestId = requestId;
  }
}

let settingsAnswer = null;

/** How the deployment authenticates: {"auth_strategy": "noauth2" | "keystone"}. */
export function settings() {
  settingsAnswer ??= fetch(new URL("settings.json", import.meta.url)).then((r) => r.json());
  return settingsAnswer;
}

/** The token this tab uses, if one was given. */
export function storedToken() {
  return sessionStorage.getItem(TOKEN_KEY);
}

export function setToken(token) {
  if (token) sessionStorage.setItem(TOKEN_KEY, token);
  else sessionStorage.removeItem(TOKEN_KEY);
}

let askForToken = async () => {
  throw new ApiError(401, "Unauthorized", "no token");
};

/** Who asks the user for a token: `ask(reason)` resolves to it or rejects. */
export function onTokenNeeded(ask) {
  askForToken = ask;
}

/** The token to send: the stored one, `admin` on noauth2, else one asked for. */
export async function currentToken() {
  const stored = storedToken();
  if (stored) return stored;
  const { auth_strategy: strategy } = await settings();
  if (strategy === "noauth2") return "admin";
  return requestToken("This cloud authenticates with Keystone: paste a token.");
}

let asking = null;

/** Ask the user for a token and keep it; a refusal is a 401 error. Calls
 * made while the user is being asked wait for the same answer. */
function requestToken(reason) {
  asking ??= (async () => {
    try {
      const token = await askForToken(reason);
      setToken(token);
      return token;
    } catch {
      throw new ApiError(401, "Unauthorized", "no token was given");
    } finally {
      asking = null;
    }
  })();
  return asking;
}

function collapse(text) {
  return String(text ?? "")
    .replace(/\s+/g, " ")
    .trim();
}

/** The service's own words from an error body, whichever document it is. */
function errorFrom(response, text) {
  let data = null;
  try {
    data = JSON.parse(text);
  } catch {
    // Not JSON: the status line says it all.
  }
  const requestId = response.headers.get("x-openstack-request-id");
  const placementError = data?.errors?.[0];
  if (placementError) {
    return new ApiError(response.status, placementError.title, collapse(placementError.detail), requestId);
  }
  if (typeof data?.error_message === "string") {
    let inner = {};
    try {
      inner = JSON.parse(data.error_message);
    } catch {
      inner = { faultstring: data.error_message };
    }
    return new ApiError(
      response.status,
      response.statusText || "Error",
      collapse(inner.faultstring ?? inner.description),
      requestId,
    );
  }
  const other = data?.error ?? data;
  return new ApiError(
    response.status,
    other?.title ?? response.statusText ?? "Error",
    collapse(other?.message),
    requestId,
  );
}

async function call(path, { method = "GET", body, version, retried = false } = {}) {
  const headers = { Accept: "application/json", "X-Auth-Token": await currentToken() };
  if (version) headers["OpenStack-API-Version"] = version;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const response = await fetch(new URL(path, ROOT), {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (response.status === 401 && !retried && (await settings()).auth_strategy !== "noauth2") {
    setToken(null);
    await requestToken("The token was refused (401 Unauthorized): paste a valid one.");
    return call(path, { method, body, version, retried: true });
  }
  if (!response.ok) throw errorFrom(response, text);
  return text ? JSON.parse(text) : null;
}

/** A Placement API call, at `microversion` (default: the latest). */
export function placement(path, { microversion = "latest", ...options } = {}) {
  return call(path, { ...options, version: `placement ${microversion}` });
}

/** A call of Watcher's API under /v1 (infra-optim, latest version). */
export function infraOptim(path, options = {}) {
  return call(path, { ...options, version: "infra-optim latest" });
}

/** A console JSON route, /console/api/<route>?<params>. */
export function consoleApi(route, params = new URLSearchParams()) {
  const query = params.toString();
  return call(`console/api/${route}${query ? `?${query}` : ""}`);
}

/** Show `error` in `box` (an element with role=alert), or hide the box for null. */
export function showError(box, error) {
  if (!error) {
    box.hidden = true;
    box.textContent = "";
    return;
  }
  box.hidden = false;
  box.textContent = error instanceof ApiError ? error.message : `Error: ${error.message ?? error}`;
  if (error.requestId) box.title = `request ${error.requestId}`;
}
