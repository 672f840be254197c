// The table's state as data, and pure functions of it: no DOM here, so that
// it can be tested on its own.  A model `S` holds the last state message of
// the server (docs/protocol.md), the story of the match so far, the own hand
// in playing order with the picked cards, and what the page shows of them.

import { sortHand } from "../cards.js";
import { has as hasWords, t } from "../i18n.js";
import { actionParts, refusalWords } from "../words.js";

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
    why: null, // the engine's answer for the picked cards: {action, version, legal, text, rule}
    asked: null, // the explain request sent last: {action, version}
    hint: null, // {pending, version} while asked, then {action, version} or {note}
    chat: [], // the chat lines heard, each once (by time and seat)
    muted: [], // the seats whose lines this browser hides
    bubbles: {}, // seat -> {text, until}: what each one just said, by their name
    joinedAt: 0,
    leaving: false,
    rematchAsked: null, // "same" or "new" while a rematch request is on its way
    notes: [], // what the log tells besides the events: {after: how many events came before it, key, params}
    standInAt: {}, // seat -> when (Date.now() ms) the stand-in plays for that away person
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
  if (info.name) return info.name;
  if (info.left) return t("seat.left_named", { name: info.left }); // who left it, while the seat is free
  return t("seat.free_named", { seat: t("seat.number", { n: seat + 1 }) });
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

/** The names of who watches (the first few), a nameless one as "a guest". */
export function watcherNames(S) {
  const info = tableInfo(S);
  const list = info && Array.isArray(info.watchers) ? info.watchers : [];
  return list.map((name) => name || t("watchers.guest"));
}

/** How many watch: all of them, though the server lists only the first few names. */
export function watcherCount(S) {
  const info = tableInfo(S);
  return Math.max(info && typeof info.watching === "number" ? info.watching : 0, watcherNames(S).length);
}

/** Who is at the table now (a `presence` message), into the table's info; true when taken in. */
export function applyPresence(S, message, now = Date.now()) {
  const info = tableInfo(S);
  if (!info) return false;
  for (const entry of message.seats || []) {
    const seat = info.seats[entry.seat];
    if (seat) Object.assign(seat, { connected: entry.connected, stand_in: entry.stand_in, handed: entry.handed, stand_in_in: entry.stand_in_in });
  }
  noteSeats(S, null, info, now);
  info.watchers = Array.isArray(message.watchers) ? message.watchers : [];
  info.watching = message.watching || 0;
  return true;
}

/**
 * What the seats say besides the events: when the stand-in will play for each
 * away person (`stand_in_in` counted from now), and a note for the log when a
 * person gives up their seat (`left` appears where a name was).
 */
export function noteSeats(S, before, info, now = Date.now()) {
  if (!info || !Array.isArray(info.seats)) return;
  S.standInAt = {};
  for (const seat of info.seats) {
    if (typeof seat.stand_in_in === "number" && !seat.connected) S.standInAt[seat.seat] = now + seat.stand_in_in * 1000;
    const was = before && Array.isArray(before.seats) ? before.seats[seat.seat] : null;
    if (seat.left && was && was.name && !was.left) S.notes.push({ after: S.events.length, key: "log.left", params: { who: seat.left } });
  }
}

/** Whole seconds before the stand-in plays for an away person at `seat`, or null if none is due. */
export function standInLeft(S, seat, now = Date.now()) {
  const at = S.standInAt[seat];
  return typeof at === "number" ? Math.max(0, Math.ceil((at - now) / 1000)) : null;
}

/** The table's chat setting: "off", "phrases" or "text". */
export function chatMode(S) {
  const info = tableInfo(S);
  return (info && info.settings && info.settings.chat) || "phrases";
}

/** The seat of whoever went out in `deal` (the action event that closed it), or null. */
export function closerOf(S, deal) {
  for (let i = S.events.length - 1; i >= 0; i -= 1) {
    const event = S.events[i];
    if (event.kind === "action" && event.ended === "closure" && (deal === undefined || deal === null || event.deal === deal)) return event.seat;
  }
  return null;
}

/**
 * The last idle round's warning (house rule D36): {idle, n}, the idle turns so
 * far and the engine's count of those still to come (the state's `idle_left`),
 * once that is a round or less; else null.
 */
export function idleWarning(S) {
  const v = viewData(S);
  const left = S.state ? S.state.idle_left : null;
  const seats = (tableInfo(S) || {}).seats || [];
  if (!v || typeof left !== "number" || left > seats.length) return null;
  return { idle: v.idle_turns, n: left };
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
  if (first) S.joinedAt = now;
  if (S.hint && S.hint.version !== message.version) S.hint = null;
  if (S.why && S.why.version !== message.version) S.why = null;
  noteSeats(S, before ? before.table : null, message.table, now);
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
  if (S.events.length > LOG_LIMIT) {
    const dropped = S.events.length - LOG_LIMIT;
    S.events.splice(0, dropped);
    S.notes = S.notes.map((note) => ({ ...note, after: note.after - dropped })).filter((note) => note.after >= 0);
  }
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

/** A rule's short title in the reader's language ("R16" -> "A single card taken from the pile"), or "". */
export function ruleTitle(rule) {
  return rule && hasWords(`rule.${rule}`) ? t(`rule.${rule}`) : "";
}

/**
 * A refusal in words: "R16 · <title>: <the engine's reason>" (the rule id and
 * title first), all in the reader's language (refusalWords).
 */
export function ruleText(refusal) {
  let reason = refusalWords(refusal);
  const rule = refusal.rule;
  if (!rule || rule === "notation") return reason;
  if (reason.startsWith(`${rule}: `)) reason = reason.slice(rule.length + 2);
  const title = ruleTitle(rule);
  return `${rule}${title ? ` · ${title}` : ""}: ${reason}`;
}

/** Take an `error` message in: the refusal's words, shown until the next change. */
export function applyError(S, message) {
  S.pending = null;
  const text = ruleText(message);
  S.error = { text, code: message.code, rule: message.rule || null };
  return text;
}

// ------------------------------------------------------ why not, hint
/**
 * What to ask the engine about the picked cards when no legal move uses
 * exactly them: one card, "discard X"; two or more, "meld X Y Z"; else null
 * (not the own turn's play phase, nothing picked, or a legal move fits).
 */
export function explainRequest(S) {
  const v = viewData(S);
  if (!myTurn(S) || !v || v.phase === "draw" || S.pending !== null) return null;
  const cards = selectedCards(S);
  if (!cards.length) return null;
  if (optionsFor(S, "meld").length || optionsFor(S, "add").length || optionsFor(S, "discard").length) return null;
  return cards.length === 1 ? `discard ${cards[0]}` : `meld ${cards.join(" ")}`;
}

/** Take an `explained` answer in, if it is about the picked cards at this version; true when kept. */
export function applyExplained(S, message) {
  if (!S.state || message.version !== S.state.version || message.action !== explainRequest(S)) return false;
  S.why = {
    action: message.action,
    version: message.version,
    legal: !!message.legal,
    rule: message.rule || null,
    text: message.legal ? "" : ruleText(message),
  };
  return true;
}

/** The engine's reason for the picked cards, if it is the answer for them now (else null). */
export function whyNow(S) {
  const request = explainRequest(S);
  return S.why && request && S.why.action === request && S.state && S.why.version === S.state.version ? S.why : null;
}

/**
 * Take a `hint` answer in: kept if it is for the state on screen; a meld, add or
 * discard picks its cards in the hand.  Returns the action's parts, or null.
 */
export function applyHint(S, message) {
  if (!S.state || message.version !== S.state.version || !message.action) return null;
  const p = actionParts(message.action);
  S.hint = { action: message.action, version: message.version };
  S.choices = null;
  S.error = null;
  if (["meld", "add", "discard"].includes(p.kind)) {
    S.selected = reselect(S, p.cards);
    if (S.selected.length) S.cursor = S.selected[0];
  }
  return p;
}

/** An error that answers the hint asked (too soon, not the turn): a note instead of a refusal. True when it was. */
export function applyHintError(S, message) {
  if (!S.hint || !S.hint.pending) return false;
  if (!["rate_limited", "not_your_turn", "no_deal", "spectator"].includes(message.code)) return false;
  S.hint = { note: message.code === "rate_limited" ? t("hint.wait") : refusalWords(message), version: S.state ? S.state.version : null };
  return true;
}

// ---------------------------------------------------------------- chat
/** A chat line's words: a phrase or emote in the reader's language, or the text as typed. */
export function chatWords(line) {
  if (typeof line.text === "string") return line.text;
  if (EMOTES[line.phrase]) return EMOTES[line.phrase];
  return hasWords(`chat.${line.phrase}`) ? t(`chat.${line.phrase}`) : String(line.phrase || "");
}

/** The quick phrases and the emotes (docs/protocol.md), the emotes as emoji. */
export const PHRASES = ["hello", "good_luck", "well_played", "nice_biriba", "thanks", "sorry", "oops", "hurry", "thinking", "good_game", "bye"];
export const EMOTES = { smile: "😊", laugh: "😂", wow: "😮", sad: "😢", angry: "😠" };

/** Keep a `said` line once (the server sends the last ones again to whoever joins); true when new. */
export function addChat(S, line, limit = 60) {
  if (S.chat.some((old) => old.at === line.at && old.seat === line.seat)) return false;
  S.chat.push(line);
  if (S.chat.length > limit) S.chat.splice(0, S.chat.length - limit);
  return true;
}

/** The lines to show: none of a muted seat's. */
export function visibleChat(lines, muted) {
  const hidden = new Set(muted || []);
  return lines.filter((line) => !hidden.has(line.seat));
}

/** Mute or unmute a seat; returns the new list (sorted). */
export function toggleMute(muted, seat) {
  const set = new Set(muted || []);
  if (set.has(seat)) set.delete(seat);
  else set.add(seat);
  return [...set].sort((a, b) => a - b);
}

// ------------------------------------------------------------- rematch
/**
 * What to do with a `rematch` answer: the seat to remember at the new table
 * ({token, seat, name}, or null when none was given) and where to go.
 */
export function rematchPlan(answer, name) {
  const id = String(answer.table);
  const seat = typeof answer.token === "string" && typeof answer.seat === "number" ? { token: answer.token, seat: answer.seat, name: name || "" } : null;
  return { id, seat, path: `/t/${encodeURIComponent(id)}` };
}

// ----------------------------------------------------------- selection
export function toggleCard(S, index) {
  const at = S.selected.indexOf(index);
  if (at >= 0) S.selected.splice(at, 1);
  else S.selected.push(index);
  S.cursor = index;
  S.choices = null;
  S.error = null;
  if (S.hint && !S.hint.pending) S.hint = null; // the player picks their own way now
}

export function clearSelection(S) {
  S.selected = [];
  S.choices = null;
  S.error = null;
  if (S.hint && !S.hint.pending) S.hint = null;
}
