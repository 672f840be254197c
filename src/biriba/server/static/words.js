// Sentences built from the catalog with live parts: a placeholder may be
// filled by text, a DOM node, or a list of card tokens (drawn as coloured
// card text).  eventWords() tells what happened, in the reader's language;
// meldWords() what a meld on the table is; refusalWords() why something was
// refused (the engine's reason, or the server's code).

import { cardsInline, cardsPlain, cardText } from "./cards.js";
import { h } from "./dom.js";
import { has, t } from "./i18n.js";

/** A catalog entry as DOM: {cards} placeholders given arrays of tokens become coloured cards. */
export function tnode(key, params = {}) {
  const template = t(key, Object.fromEntries(Object.entries(params).filter(([, v]) => typeof v !== "object" || v === null)));
  const out = h("span");
  const parts = template.split(/\{(\w+)\}/);
  parts.forEach((part, i) => {
    if (i % 2 === 0) {
      if (part) out.append(part);
      return;
    }
    const value = params[part];
    if (Array.isArray(value)) out.append(cardsInline(value));
    else if (value instanceof Node) out.append(value);
    else out.append(`{${part}}`);
  });
  return out;
}

/** The same sentence as plain text (for the live region and the page title). */
export function tplain(key, params = {}) {
  const flat = {};
  for (const [k, v] of Object.entries(params)) {
    if (Array.isArray(v)) flat[k] = cardsPlain(v);
    else if (v instanceof Node) flat[k] = v.textContent;
    else flat[k] = v;
  }
  return t(key, flat);
}

/** The words of an action string's parts. */
export function actionParts(text) {
  const words = text.trim().split(/\s+/);
  const kind = words[0];
  let rest = words.slice(1);
  let meld = null;
  if (kind === "add") {
    meld = Number(rest[0]);
    rest = rest.slice(1);
  }
  let end = null;
  const tokens = [];
  for (const word of rest) {
    if (word.startsWith("wild=")) end = word.slice(5);
    else tokens.push(word);
  }
  return { text, kind, meld, tokens, cards: tokens.map((token) => token.split("=")[0]), end };
}

/**
 * How a deal ended, in words: who went out ("Eleni went out", "You went out")
 * when `closer` (the seat whose action closed it) is known, else the way it ended.
 */
export function endedWords(endedBy, closer, me, names) {
  if (endedBy === "closure" && closer !== null && closer !== undefined) {
    return closer === me ? t("ended.closure_you") : t("ended.closure_by", { who: names(closer) });
  }
  return t(`ended.${endedBy}`);
}

/** What an action does, as a sentence to propose it: {key, params} ("Meld 3♥ 4♥ 5♥", "Take the pile"). */
export function actionWords(text) {
  const p = actionParts(text);
  switch (p.kind) {
    case "draw":
      return { key: "do.draw", params: {} };
    case "take":
      return { key: "do.take", params: {} };
    case "pass":
      return { key: "do.pass", params: {} };
    case "meld":
      return { key: "do.meld", params: { cards: p.tokens } };
    case "add":
      return { key: "do.add", params: { cards: p.tokens, meld: p.meld } };
    case "discard":
      return { key: "do.discard", params: { card: p.tokens } };
    default:
      return { key: "do.other", params: { action: text } };
  }
}

/**
 * One event, told from the point of view of `me` (a seat, or null for a spectator).
 * names(seat) gives a seat's name; `closer` the seat that went out, for a result.
 * Returns [{key, params}].
 */
export function eventWords(event, me, names, closer = null) {
  const you = event.seat !== undefined && event.seat === me;
  const who = event.seat !== undefined ? names(event.seat) : "";
  const suffix = you ? "_you" : "";
  if (event.kind === "deal") return [{ key: "ev.deal", params: { n: event.deal } }];
  if (event.kind === "result") {
    const result = event.result;
    if (!result) return [{ key: "ev.result_plain", params: { n: event.deal } }];
    return [{ key: "ev.result", params: { n: event.deal, how: endedWords(result.ended_by, closer, me, names) } }];
  }
  if (event.kind !== "action" || !event.action) return [];
  const action = actionParts(event.action);
  const lines = [];
  const params = { who };
  switch (action.kind) {
    case "draw":
      if (event.drawn) lines.push({ key: "ev.draw_card" + suffix, params: { ...params, card: [event.drawn] } });
      else lines.push({ key: "ev.draw" + suffix, params });
      break;
    case "take": {
      const taken = event.taken || [];
      lines.push({ key: "ev.take" + suffix, params: { ...params, n: taken.length, cards: taken } });
      break;
    }
    case "pass":
      lines.push({ key: "ev.pass" + suffix, params });
      break;
    case "meld":
      lines.push({ key: "ev.meld" + suffix, params: { ...params, cards: action.tokens } });
      break;
    case "add":
      lines.push({ key: "ev.add" + suffix, params: { ...params, cards: action.tokens, meld: action.meld } });
      break;
    case "discard":
      lines.push({ key: "ev.discard" + suffix, params: { ...params, card: action.tokens } });
      break;
    default:
      lines.push({ key: "ev.other", params: { ...params, action: event.action } });
  }
  if (event.reserve) {
    const n = event.packet && event.packet.length ? event.packet.length : null;
    lines.push({ key: `ev.reserve_${event.reserve}${suffix}`, params: { who, n: n ?? "" } });
  }
  if (event.by) lines.push({ key: `ev.by_${event.by}${suffix}`, params: { who } });
  if (event.ended === "closure") lines.push({ key: "ev.out" + suffix, params: { who } });
  else if (event.ended) lines.push({ key: "ev.ended", params: { how: t(`ended.${event.ended}`) } });
  return lines;
}

/**
 * A meld's state in words, from the engine's facts of it (a state message's
 * `board`): "run of 5", "clean biriba (set of 7)", "dirty 13-run".
 */
export function meldWords(info) {
  if (!info.biriba) return t(`meld.${info.kind}`, { n: info.size });
  if (info.kind === "wild") return t("meld.wild_biriba", { n: info.size });
  const clean = info.clean ? "clean" : "dirty";
  if (info.kind === "run" && info.size === 13) return t(`meld.${clean}_13`);
  return t(`meld.${clean}_biriba`, { kind: t(`meld.${info.kind}`, { n: info.size }) });
}

/** One parameter of the engine's reason in words, by what its name says it holds (biriba/reasons.py). */
function reasonParam(name, value) {
  if (value !== null && typeof value === "object") return reasonWords(value);
  if (name === "card" || name === "slot" || name === "two") return cardText(value);
  if (name === "cards" || name === "meld") return cardsPlain(String(value).split(" "));
  if (name === "rank") return t(`ranks.${value}`);
  if (name === "suit") return t(`suit.${value}`);
  if (name === "kind" || name === "end") return t(`word.${value}`);
  return value;
}

/** The engine's reason for a refusal ({key, params}) in the reader's language, or null if the catalog lacks it. */
export function reasonWords(reason) {
  if (!reason || !has(`reason.${reason.key}`)) return null;
  const params = {};
  for (const [name, value] of Object.entries(reason.params || {})) {
    params[name] = reasonParam(name, value);
    if (params[name] === null) return null;
  }
  return t(`reason.${reason.key}`, params);
}

/**
 * A refusal ({code, message, reason}: an `error` message or an HTTP error's
 * body) in words: the engine's reason or the server's code in the reader's
 * language, else the message as the server wrote it.
 */
export function refusalWords(refusal) {
  const reason = reasonWords(refusal.reason);
  if (reason !== null) return reason;
  if (refusal.code && has(`error.code.${refusal.code}`)) return t(`error.code.${refusal.code}`);
  return String(refusal.message || refusal.error || refusal.code || "");
}
