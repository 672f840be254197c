// The table's state as data, and pure functions of it: no DOM here, so that
// it can be tested on its own.  A model `S` holds the last state message of
// the server (docs/protocol.md), the story of the match so far, the own hand
// in playing order with the picked cards, and what the page shows of them.

import { sortHand } from "../cards.js";
import { t } from "../i18n.js";
import { actionParts } from "../words.js";

/** The most events the log keeps. */
export const LOG_LIMIT = 300;

/** A fresh model for a table: `me` the seat held in this browser (null to watch), `sort` "suit" or "rank". */
export function createModel({ id = null, token = null, me = null, sort = "suit" } = {}) {
  return {
    id,
    token,
    me,
    joined: false,
    everConnected: false,
    state: null,
    events: [],
    lastNumber: -1,
    hand: [],
    selected: [],
    cursor: 0,
    fresh: [],
    pending: null,
    error: null,
    choices: null,
    showResult: true,
    resultSeenAt: null,
    sort,
    focusHand: false,
    lastFlash: null,
  };
}

// ------------------------------------------------------------ selectors
export const tableInfo = (S) => (S.state ? S.state.table : null);
export const viewData = (S) => (S.state ? S.state.view : null);
export const legal = (S) => (S.state && S.state.legal ? S.state.legal : []);
export const isSeated = (S) => S.me !== null && S.me !== undefined;
export const has = (S, text) => legal(S).includes(text);

/** The codes of the cards that play as wilds at this table (a joker always does). */
export function wilds(S) {
  const info = tableInfo(S);
  return info && info.rules && Array.isArray(info.rules.wilds) ? info.rules.wilds : ["JK"];
}

/** Every rule option's value (the table's `rules.options`), or {} before the first state. */
export function options(S) {
  const info = tableInfo(S);
  return (info && info.rules && info.rules.options) || {};
}

export function seatInfo(S, seat) {
  const info = tableInfo(S);
  return info && info.seats ? info.seats[seat] || null : null;
}

export function nameOf(S, seat) {
  const info = seatInfo(S, seat);
  if (!info) return t("seat.number", { n: seat + 1 });
  if (info.kind === "bot") return t("bot.name", { n: seat + 1 });
  return info.name || t("seat.free_named", { seat: t("seat.number", { n: seat + 1 }) });
}

/** A seat's name, or "You" for the own seat. */
export function who(S, seat) {
  return seat === S.me ? t("you") : nameOf(S, seat);
}

export function teamOf(S, seat) {
  const info = seatInfo(S, seat);
  return info && typeof info.team === "number" ? info.team : seat;
}

/** The seats of each team, by team index. */
export function teams(S) {
  const info = tableInfo(S);
  const count = info && info.seats ? info.seats.length : 4;
  const out = [];
  for (let seat = 0; seat < count; seat += 1) {
    const team = teamOf(S, seat);
    (out[team] = out[team] || []).push(seat);
  }
  return Array.from(out, (seats) => seats || []);
}

/** The team indexes in the order shown: the own team first. */
export function teamOrder(S) {
  const all = teams(S).map((_, i) => i);
  if (!isSeated(S)) return all;
  const mine = teamOf(S, S.me);
  return [mine, ...all.filter((x) => x !== mine)];
}

/** A team's name as a panel heading: "Us (with Nikos)", "You", or the players' names. */
export function teamLabel(S, team) {
  const seats = teams(S)[team] || [];
  if (isSeated(S) && seats.includes(S.me)) {
    const others = seats.filter((s) => s !== S.me).map((s) => nameOf(S, s));
    return seats.length > 1 ? t("team.us_with", { names: others.join(" & ") }) : t("team.you");
  }
  return seats.map((s) => nameOf(S, s)).join(" & ");
}

/** A team's short name for scores: "Us", "You", or the players' names. */
export function teamShort(S, team) {
  const seats = teams(S)[team] || [];
  if (isSeated(S) && seats.includes(S.me)) return seats.length > 1 ? t("team.us") : t("team.you");
  return seats.map((s) => nameOf(S, s)).join(" & ");
}

export function myTurn(S) {
  const v = viewData(S);
  return isSeated(S) && !!v && v.to_move === S.me && legal(S).length > 0;
}

export function selectedCards(S) {
  return S.selected.map((i) => S.hand[i]);
}

/** The legal actions, each in its parts (actionParts). */
export function parts(S) {
  return legal(S).map(actionParts);
}

/** The legal actions of this kind (and meld, for add) that use exactly the picked cards. */
export function optionsFor(S, kind, meld = null) {
  const cards = selectedCards(S);
  return parts(S).filter((p) => p.kind === kind && (meld === null || p.meld === meld) && sameCards(p.cards, cards));
}

export function teamMelds(S, team) {
  const v = viewData(S);
  return v && v.melds && v.melds[team] ? v.melds[team] : [];
}

/** The engine's facts of a team's table: {points, opening_minimum, melds: [{kind, size, clean, biriba, points, bonus, to_biriba}]}. */
export function teamBoard(S, team) {
  const board = S.state && Array.isArray(S.state.board) ? S.state.board[team] : null;
  return board || { points: 0, opening_minimum: 0, melds: [] };
}

export function reserveOf(S, team) {
  const v = viewData(S);
  return v && v.reserves ? v.reserves[team] : null;
}

/** May a seated person start the next deal now? */
export function nextDisabled(S) {
  const info = tableInfo(S);
  return !isSeated(S) || !info || info.status === "over" || !S.joined;
}

/** Are a and b the same cards, in any order? */
export function sameCards(a, b) {
  if (a.length !== b.length) return false;
  const counts = new Map();
  for (const card of a) counts.set(card, (counts.get(card) || 0) + 1);
  for (const card of b) {
    const n = counts.get(card);
    if (!n) return false;
    counts.set(card, n - 1);
  }
  return true;
}

// ------------------------------------------------------------- changes
/** The indexes in the hand now of these cards (a card picked twice needs two copies). */
export function reselect(S, cards) {
  const used = new Set();
  const out = [];
  for (const card of cards) {
    const index = S.hand.findIndex((c, i) => c === card && !used.has(i));
    if (index >= 0) {
      used.add(index);
      out.push(index);
    }
  }
  return out;
}

/** Sort the hand again (after the sort mode changed), keeping the picked cards picked. */
export function resort(S, sort = S.sort) {
  const cards = selectedCards(S);
  S.sort = sort;
  S.hand = sortHand(S.hand, wilds(S), S.sort);
  S.selected = reselect(S, cards);
}

/** The cards new in the own hand: the one drawn, the pile taken, the reserve picked up. */
export function trackFresh(S, event) {
  if (event.kind === "deal") {
    S.fresh = [];
    S.showResult = true;
    return;
  }
  if (event.kind !== "action" || event.seat !== S.me) return;
  const kind = actionParts(event.action || "").kind;
  if (kind === "draw") S.fresh = event.drawn ? [event.drawn] : [];
  else if (kind === "take") S.fresh = [...(event.taken || [])];
  else if (kind === "discard") S.fresh = [];
  if (event.packet && event.packet.length) S.fresh = [...S.fresh, ...event.packet];
}

/** What these events changed on the table, to flash: "pile", or "team:meld number". */
export function flashTargets(S, events) {
  const out = new Set();
  for (const event of events) {
    if (event.kind !== "action") continue;
    const p = actionParts(event.action || "");
    const team = teamOf(S, event.seat);
    if (p.kind === "add") out.add(`${team}:${p.meld}`);
    if (p.kind === "meld") out.add(`${team}:${teamMelds(S, team).length}`);
    if (p.kind === "take" || p.kind === "discard") out.add("pile");
  }
  return out;
}

/**
 * Take a `state` message in: the new events (each once, by number, the log
 * kept to LOG_LIMIT), the own hand in order with the same cards still picked
 * (or none once the own action went through), the fresh cards, what to flash,
 * when the deal's result was first seen.  Returns {first, fresh, wasMyTurn}.
 */
export function applyState(S, message, now = Date.now()) {
  const first = !S.joined;
  S.joined = true;
  S.everConnected = true;
  const before = S.state;
  const wasMyTurn = myTurn(S);
  const hadHand = S.hand.length > 0;
  const previousSelected = selectedCards(S);
  S.state = message;
  if (message.seat !== undefined && message.seat !== null) S.me = message.seat;
  else if (!S.token) S.me = null;
  const fresh = [];
  for (const event of message.events || []) {
    if (event.number <= S.lastNumber) continue;
    S.events.push(event);
    S.lastNumber = event.number;
    fresh.push(event);
    trackFresh(S, event);
  }
  if (S.events.length > LOG_LIMIT) S.events.splice(0, S.events.length - LOG_LIMIT);
  const v = message.view;
  const mine = v && isSeated(S) && v.hands && Array.isArray(v.hands[S.me]) ? v.hands[S.me] : [];
  S.hand = sortHand(mine, wilds(S), S.sort);
  if (S.pending !== null && message.version > S.pending) {
    S.pending = null;
    S.selected = [];
    S.choices = null;
    S.error = null;
  } else if (hadHand) {
    S.selected = reselect(S, previousSelected);
  }
  if (S.cursor >= S.hand.length) S.cursor = Math.max(0, S.hand.length - 1);
  if (!myTurn(S)) {
    S.choices = null;
    if (S.error && fresh.length) S.error = null;
  }
  if (message.result) {
    if (!before || !before.result) {
      S.showResult = true;
      S.resultSeenAt = now;
    }
  } else {
    S.resultSeenAt = null;
  }
  S.lastFlash = flashTargets(S, fresh);
  return { first, fresh, wasMyTurn };
}

/** Take an `error` message in: the refusal's words, shown until the next change. */
export function applyError(S, message) {
  S.pending = null;
  let text = message.message || message.code || "";
  if (message.code === "stale") text = t("error.stale");
  else if (message.rule && !text.startsWith(message.rule) && message.rule !== "notation") text = `${message.rule}: ${text}`;
  S.error = { text, code: message.code, rule: message.rule || null };
  return text;
}

// ----------------------------------------------------------- selection
export function toggleCard(S, index) {
  const at = S.selected.indexOf(index);
  if (at >= 0) S.selected.splice(at, 1);
  else S.selected.push(index);
  S.cursor = index;
  S.choices = null;
  S.error = null;
}

export function clearSelection(S) {
  S.selected = [];
  S.choices = null;
  S.error = null;
}
