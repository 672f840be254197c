// The catalogs of words: every user-visible string comes from i18n/<lang>.json.
// Keys are flat ("lobby.title"); {name} is a placeholder; a key with "_one"
// appended is used when the placeholder n is 1 (the same rule in en, el, it);
// {name|one|other} picks its words by the count in a sentence of several.

export const LANGUAGES = { en: "English", el: "Ελληνικά", it: "Italiano" };
const STORAGE_KEY = "biriba.lang";

let current = "en";
let catalog = {};
let fallback = {};
const listeners = new Set();

async function fetchCatalog(code) {
  const url = new URL(`./i18n/${code}.json`, import.meta.url);
  const response = await fetch(url);
  if (!response.ok) throw new Error(`catalog ${code}: ${response.status}`);
  return response.json();
}

/** The language to start with: the stored choice, else the browser's (el, it), else English. */
export function preferredLanguage() {
  let stored = null;
  try { stored = localStorage.getItem(STORAGE_KEY); } catch { /* private mode */ }
  if (stored && stored in LANGUAGES) return stored;
  for (const tag of navigator.languages || [navigator.language || "en"]) {
    const base = String(tag).toLowerCase().split("-")[0];
    if (base === "el" || base === "it") return base;
    if (base === "en") return "en";
  }
  return "en";
}

export async function setLanguage(code, remember = false) {
  if (!(code in LANGUAGES)) code = "en";
  if (!Object.keys(fallback).length) fallback = await fetchCatalog("en");
  catalog = code === "en" ? fallback : await fetchCatalog(code).catch(() => fallback);
  current = code;
  document.documentElement.lang = code;
  if (remember) {
    try { localStorage.setItem(STORAGE_KEY, code); } catch { /* ignore */ }
  }
  for (const listener of listeners) listener(code);
}

export function language() {
  return current;
}

export function onLanguage(listener) {
  listeners.add(listener);
}

export function has(key) {
  return key in catalog || key in fallback;
}

/** The words of `key`, with its {placeholders} filled from params. */
export function t(key, params = {}) {
  let text;
  if (params.n === 1 && (`${key}_one` in catalog || `${key}_one` in fallback)) {
    text = catalog[`${key}_one`] ?? fallback[`${key}_one`];
  } else {
    text = catalog[key] ?? fallback[key];
  }
  if (text === undefined) return key;
  return fill(text, params);
}

/**
 * A template's placeholders filled: {name} by params.name, {name|one|other}
 * by the words for 1 or for any other count, # standing for the number
 * ("{count|a biriba|# biribas}"; the engine's reasons use it, biriba/reasons.py).
 */
function fill(text, params) {
  return text.replace(/\{(\w+)(?:\|([^|}]*)\|([^|}]*))?\}/g, (whole, name, one, other) => {
    if (!(name in params)) return whole;
    if (one === undefined) return String(params[name]);
    return (Number(params[name]) === 1 ? one : other).replaceAll("#", String(params[name]));
  });
}
