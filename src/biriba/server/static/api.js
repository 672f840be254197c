// The HTTP API (docs/protocol.md) and what the page keeps in localStorage.

import { creationOptions, credentialJSON, requestOptions } from "./passkeys.js";
import { refusalWords } from "./words.js";

/** A refused request: its message in the reader's language (refusalWords), its HTTP status, code and rule. */
export class ApiError extends Error {
  constructor(status, body) {
    super((body && refusalWords(body)) || `HTTP ${status}`);
    this.status = status;
    this.rule = body && body.rule;
    this.code = body && body.code;
  }
}

/** Who is signed in ({name, csrf}, nulls for a guest), asked once a page load and renewed at sign in, up and out. */
let session = null;
function signedIn() {
  session = session || request("GET", "/api/me").catch(() => ({ name: null, csrf: null }));
  return session;
}

async function request(method, path, body, headers = {}) {
  const options = { method, headers: { Accept: "application/json", ...headers } };
  if (method !== "GET" && path !== "/api/me") {
    const me = await signedIn(); // a write the cookie signs carries the session's CSRF token
    if (me.csrf && !options.headers["X-CSRF-Token"]) options.headers["X-CSRF-Token"] = me.csrf;
  }
  if (body !== undefined) {
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  const response = await fetch(path, options);
  let data = null;
  try {
    data = await response.json();
  } catch {
    data = null;
  }
  if (!response.ok) throw new ApiError(response.status, data);
  return data;
}

let rulesCache = null;

export const api = {
  rules() {
    rulesCache = rulesCache || request("GET", "/api/rules").catch((error) => {
      rulesCache = null;
      throw error;
    });
    return rulesCache;
  },
  tables: (after) => request("GET", after ? `/api/tables?after=${encodeURIComponent(after)}` : "/api/tables"),
  table: (id) => request("GET", `/api/tables/${encodeURIComponent(id)}`),
  create: (spec) => request("POST", "/api/tables", spec),
  sit: (id, seat, name) => request("POST", `/api/tables/${encodeURIComponent(id)}/seats/${seat}`, { name }),
  replay: (id, deal, step) => request("GET", `/api/tables/${encodeURIComponent(id)}/replay?deal=${deal}&step=${step}`),
  recordUrl: (id) => `/api/tables/${encodeURIComponent(id)}/record`,
  record: (id) => request("GET", `/api/tables/${encodeURIComponent(id)}/record`),
  analysis: (id) => request("GET", `/api/tables/${encodeURIComponent(id)}/analysis`),
  askAnalysis: (id) => request("POST", `/api/tables/${encodeURIComponent(id)}/analysis`),
  me: () => signedIn(),
  async signUp(name, password) {
    return signedInAs(await request("POST", "/api/accounts", { name, password }));
  },
  async signIn(name, password) {
    return signedInAs(await request("POST", "/api/session", { name, password }));
  },
  /** A passkey for the signed-in account, made by this device (its own prompt: a fingerprint, a face, a PIN). */
  async addPasskey(password) {
    const { handle, public_key: options } = await request("POST", "/api/me/passkey-options", { password });
    const made = await navigator.credentials.create({ publicKey: creationOptions(options) });
    return request("POST", "/api/me/passkeys", { handle, credential: credentialJSON(made) });
  },
  async signInWithPasskey() {
    const { handle, public_key: options } = await request("POST", "/api/session/passkey-options");
    const used = await navigator.credentials.get({ publicKey: requestOptions(options) });
    return signedInAs(await request("POST", "/api/session/passkey", { handle, credential: credentialJSON(used) }));
  },
  myPasskeys: () => request("GET", "/api/me/passkeys"),
  removePasskey: (id) => request("DELETE", `/api/me/passkeys/${encodeURIComponent(id)}`),
  async signOut() {
    await request("DELETE", "/api/session");
    session = Promise.resolve({ name: null, csrf: null });
  },
  player: (name) => request("GET", `/api/players/${encodeURIComponent(name)}`),
  leaderboard: (rules) => request("GET", `/api/leaderboard?rules=${encodeURIComponent(rules)}`),
  mySeats: () => request("GET", "/api/me/seats"),
  bindSeat: (table, seat, token) => request("POST", "/api/me/seats", { table, seat, token }),
  myBlocks: () => request("GET", "/api/me/blocks"),
  block: (name) => request("POST", "/api/me/blocks", { name }),
  unblock: (name) => request("DELETE", `/api/me/blocks/${encodeURIComponent(name)}`),
  report: (name, reason, table) => request("POST", "/api/reports", table ? { name, reason, table } : { name, reason }),
  quickPlay: (ask) => request("POST", "/api/quick", ask),
  quickStatus: () => request("GET", "/api/quick"),
  quickLeave: () => request("DELETE", "/api/quick"),
  takeBack: (id, seat) => request("POST", `/api/tables/${encodeURIComponent(id)}/seats/${seat}/token`),
};

/** A sign-up's or sign-in's answer: the session from now on, and the seats this browser holds bound to it (a
 * guest who signs up keeps their seats).  A seat that cannot be bound (its table gone) is left as it is. */
async function signedInAs(me) {
  session = Promise.resolve(me);
  await Promise.allSettled(storedSeats().map(([table, held]) => api.bindSeat(table, held.seat, held.token)));
  return me;
}

function get(key) {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}
function set(key, value) {
  try {
    if (value === null) localStorage.removeItem(key);
    else localStorage.setItem(key, value);
  } catch {
    /* private mode: the page still works, without memory */
  }
}

/** The seat this browser holds at a table: {token, seat, name}, or null. */
export function storedSeat(tableId) {
  const raw = get(`biriba.seat.${tableId}`);
  if (!raw) return null;
  try {
    const data = JSON.parse(raw);
    return data && typeof data.token === "string" ? data : null;
  } catch {
    return null;
  }
}
/** Every seat this browser holds: [tableId, {token, seat, name}]. */
export function storedSeats() {
  const out = [];
  try {
    for (let i = 0; i < localStorage.length; i++) {
      const key = localStorage.key(i);
      const held = key && key.startsWith("biriba.seat.") ? storedSeat(key.slice("biriba.seat.".length)) : null;
      if (held) out.push([key.slice("biriba.seat.".length), held]);
    }
  } catch {
    /* private mode: nothing kept */
  }
  return out;
}
export function storeSeat(tableId, data) {
  set(`biriba.seat.${tableId}`, data ? JSON.stringify(data) : null);
}
export function storedName() {
  return get("biriba.name") || "";
}
export function storeName(name) {
  set("biriba.name", name);
}
export function getPref(key, fallback) {
  const value = get(`biriba.pref.${key}`);
  return value === null ? fallback : value;
}
export function setPref(key, value) {
  set(`biriba.pref.${key}`, value);
}
/** The seats whose chat lines this browser hides at a table. */
export function storedMutes(tableId) {
  try {
    const list = JSON.parse(get(`biriba.mute.${tableId}`) || "[]");
    return Array.isArray(list) ? list.filter((seat) => Number.isInteger(seat)) : [];
  } catch {
    return [];
  }
}
export function storeMutes(tableId, seats) {
  set(`biriba.mute.${tableId}`, seats && seats.length ? JSON.stringify(seats) : null);
}
