// The table: one WebSocket (docs/protocol.md), the last state kept on screen
// while it reconnects, the teams' melds, the pile and stock, the players, the
// story of the deal, the score sheet, the result, and the hand with its
// buttons (enabled from `legal`), by touch, mouse or keyboard.

import { api, getPref, setPref, storeSeat, storedSeat } from "./api.js";
import {
  cardBack, cardFace, cardName, cardText, cardsInline, handGroup, isWildKind, miniCard, placed, rankIndex,
  sortHand, suitOf, tokenName, SUIT_SYMBOLS,
} from "./cards.js";
import { $, clear, h, put, svg } from "./dom.js";
import { t } from "./i18n.js";
import { presetLabel, seatLabel, teamLetter } from "./lobby.js";
import { analyzeMeld, meldBonus, meldValue, openingMinimum, resolveRules, teamsOf } from "./rules.js";
import { actionParts, eventWords, tnode, tplain } from "./words.js";

const BUTTONS = [
  { id: "draw", key: "d" },
  { id: "take", key: "t" },
  { id: "pass", key: "p" },
  { id: "meld", key: "m" },
  { id: "add", key: "a" },
  { id: "discard", key: "x" },
];
const PING_EVERY = 25000;
const LOG_LIMIT = 300;

function clockIcon() {
  return svg(
    "svg",
    { viewBox: "0 0 24 24", width: 16, height: 16, "aria-hidden": "true", focusable: "false", class: "icon" },
    svg("circle", { cx: 12, cy: 13, r: 8, fill: "none", stroke: "currentColor", "stroke-width": 2.2 }),
    svg("path", { d: "M12 9v4.5l3 2M9 2.5h6", fill: "none", stroke: "currentColor", "stroke-width": 2.2, "stroke-linecap": "round" }),
  );
}

function sameCards(a, b) {
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

function meldWords(info) {
  if (!info.biriba) {
    return t(`meld.${info.kind}`, { n: info.size });
  }
  if (info.kind === "wild") return t("meld.wild_biriba", { n: info.size });
  const clean = info.clean ? "clean" : "dirty";
  if (info.kind === "run" && info.size === 13) return t(`meld.${clean}_13`);
  return t(`meld.${clean}_biriba`, { kind: t(`meld.${info.kind}`, { n: info.size }) });
}

export function showTable(page, id, watching = false) {
  const held = watching ? null : storedSeat(id);
  const S = {
    id,
    token: held ? held.token : null,
    me: held ? held.seat : null,
    ws: null,
    stopped: false,
    attempts: 0,
    retryTimer: null,
    pingTimer: null,
    clockTimer: null,
    joined: false,
    everConnected: false,
    state: null,
    events: [],
    lastNumber: -1,
    presets: null,
    rules: null,
    hand: [],
    selected: [],
    cursor: 0,
    fresh: [],
    pending: null,
    error: null,
    choices: null,
    showResult: true,
    resultSeenAt: null,
    sort: getPref("sort", "suit"),
    focusHand: false,
    lastFlash: null,
  };

  // ------------------------------------------------------------ skeleton
  const view = page.view();
  view.className = "table-screen";
  const turnLine = h("div", { class: "turn-line", id: "turn", role: "status" });
  const lastLine = h("div", { class: "last-event", id: "last-event" });
  const players = h("ul", { class: "players", id: "players", "aria-label": t("players.title") });
  const piles = h("div", { class: "piles", id: "piles" });
  const board = h("section", { class: "board", id: "board", "aria-label": t("board.title") });
  const logList = h("ol", { class: "log", id: "log" });
  const sheetBox = h("div", { class: "sheet-box" });
  const rulesBox = h("div", { class: "rules-box" });
  const side = h(
    "aside",
    { class: "side", id: "side" },
    h("section", { class: "side-panel log-panel" }, h("h2", {}, t("log.title")), logList),
    h("section", { class: "side-panel" }, h("h2", {}, t("sheet.title")), sheetBox),
    rulesBox,
  );
  const prompt = h("p", { class: "prompt", id: "prompt" });
  const errorLine = h("p", { class: "error", id: "error", role: "alert", hidden: true });
  const choicesBox = h("div", { class: "choices", id: "choices", role: "group", hidden: true });
  const handBox = h("div", { class: "hand", id: "hand", role: "group" });
  const buttonRow = h("div", { class: "buttons", id: "buttons" });
  const handArea = h("section", { class: "hand-area", id: "hand-area", "aria-label": t("hand.area") }, errorLine, choicesBox);
  const pileDialog = h("dialog", { id: "pile-dialog", class: "dialog", "aria-labelledby": "pile-dialog-title" });
  const helpDialog = h("dialog", { id: "help-dialog", class: "dialog", "aria-labelledby": "help-title" });
  view.append(
    turnLine,
    h("div", { class: "strip" }, players, piles),
    lastLine,
    h("div", { class: "scroll", id: "scroll" }, board, side),
    handArea,
    pileDialog,
    helpDialog,
  );
  const buttons = {};
  for (const spec of BUTTONS) {
    const button = h(
      "button",
      { type: "button", id: spec.id, class: `action action-${spec.id}`, disabled: true, "aria-keyshortcuts": spec.key, onclick: () => onButton(spec.id) },
      h("span", { class: "action-label" }, t(`action.${spec.id}`)),
      h("kbd", { "aria-hidden": "true" }, spec.key),
    );
    buttons[spec.id] = button;
    buttonRow.append(button);
  }
  const sortButton = h("button", { type: "button", id: "sort", class: "sort-button small", onclick: toggleSort }, "");
  const promptRow = h("div", { class: "prompt-row" }, prompt, sortButton);
  handArea.append(promptRow, handBox, buttonRow);
  page.setHelp(() => openHelp());

  // ------------------------------------------------------------- helpers
  const st = () => S.state;
  const tableInfo = () => (S.state ? S.state.table : null);
  const viewData = () => (S.state ? S.state.view : null);
  const legal = () => (S.state && S.state.legal ? S.state.legal : []);
  const isSeated = () => S.me !== null && S.me !== undefined;

  function seatInfo(seat) {
    const info = tableInfo();
    return info && info.seats ? info.seats[seat] : null;
  }
  function nameOf(seat) {
    const info = seatInfo(seat);
    if (!info) return seatLabel(seat);
    if (info.kind === "bot") return t("bot.name", { n: seat + 1 });
    return info.name || t("seat.free_named", { seat: seatLabel(seat) });
  }
  function who(seat) {
    return seat === S.me ? t("you") : nameOf(seat);
  }
  function teamOf(seat) {
    const info = seatInfo(seat);
    if (info && typeof info.team === "number") return info.team;
    const teams = teamsOf(S.rules || {});
    return teams.findIndex((team) => team.includes(seat));
  }
  function teams() {
    const info = tableInfo();
    const count = info ? info.seats.length : 4;
    const out = [];
    for (let seat = 0; seat < count; seat += 1) {
      const team = teamOf(seat);
      (out[team] = out[team] || []).push(seat);
    }
    return out.map((seats) => seats || []);
  }
  function teamLabel(team) {
    const seats = teams()[team] || [];
    if (isSeated() && seats.includes(S.me)) {
      return seats.length > 1 ? t("team.us_with", { names: seats.filter((s) => s !== S.me).map(nameOf).join(" & ") }) : t("team.you");
    }
    return seats.map(nameOf).join(" & ");
  }
  function teamShort(team) {
    const seats = teams()[team] || [];
    if (isSeated() && seats.includes(S.me)) return seats.length > 1 ? t("team.us") : t("team.you");
    return seats.map(nameOf).join(" & ");
  }
  function teamOrder() {
    const count = teams().length;
    const all = Array.from({ length: count }, (_, i) => i);
    if (!isSeated()) return all;
    const mine = teamOf(S.me);
    return [mine, ...all.filter((x) => x !== mine)];
  }
  function myTurn() {
    const v = viewData();
    return isSeated() && v && v.to_move === S.me && legal().length > 0;
  }
  function selectedCards() {
    return S.selected.map((i) => S.hand[i]);
  }
  function parts() {
    return legal().map(actionParts);
  }
  function optionsFor(kind, meld = null) {
    const cards = selectedCards();
    return parts().filter((p) => p.kind === kind && (meld === null || p.meld === meld) && sameCards(p.cards, cards));
  }
  function has(text) {
    return legal().includes(text);
  }
  function teamMelds(team) {
    const v = viewData();
    return v && v.melds && v.melds[team] ? v.melds[team] : [];
  }
  function reserveOf(team) {
    const v = viewData();
    return v && v.reserves ? v.reserves[team] : null;
  }

  // ----------------------------------------------------------- connection
  function wsUrl() {
    return `${location.protocol === "https:" ? "wss:" : "ws:"}//${location.host}/ws/${encodeURIComponent(id)}`;
  }
  function connect() {
    if (S.stopped) return;
    let socket;
    try {
      socket = new WebSocket(wsUrl());
    } catch {
      scheduleReconnect();
      return;
    }
    S.ws = socket;
    S.joined = false;
    socket.addEventListener("open", () => {
      socket.send(JSON.stringify({ type: "join", token: S.token, since: S.lastNumber + 1 }));
      clearInterval(S.pingTimer);
      S.pingTimer = setInterval(() => send({ type: "ping" }), PING_EVERY);
    });
    socket.addEventListener("message", (event) => {
      let message;
      try {
        message = JSON.parse(event.data);
      } catch {
        return;
      }
      onMessage(message);
    });
    socket.addEventListener("close", (event) => {
      clearInterval(S.pingTimer);
      if (S.ws !== socket || S.stopped) return;
      S.ws = null;
      S.joined = false;
      S.pending = null;
      if (event.code === 4401) {
        storeSeat(id, null);
        S.stopped = true;
        page.navigate(`/t/${encodeURIComponent(id)}`, true);
        return;
      }
      if (event.code === 4404) {
        S.stopped = true;
        clear(view);
        view.className = "lobby";
        view.append(h("section", { class: "panel narrow" }, h("h1", {}, t("error.no_table")), h("p", {}, h("a", { href: "/", "data-link": true, class: "button" }, t("nav.lobby")))));
        return;
      }
      scheduleReconnect();
      render();
    });
  }
  function scheduleReconnect() {
    if (S.stopped) return;
    clearTimeout(S.retryTimer);
    const delay = Math.min(15000, 500 * 2 ** S.attempts) * (0.8 + Math.random() * 0.4);
    S.attempts += 1;
    const seconds = Math.max(1, Math.round(delay / 1000));
    page.banner(S.everConnected ? t("conn.reconnecting", { n: seconds }) : t("conn.connecting"));
    S.retryTimer = setTimeout(connect, delay);
  }
  function retryNow() {
    if (S.stopped || (S.ws && S.ws.readyState <= 1)) return;
    clearTimeout(S.retryTimer);
    S.attempts = 0;
    connect();
  }
  function send(message) {
    if (S.ws && S.ws.readyState === WebSocket.OPEN) {
      S.ws.send(JSON.stringify(message));
      return true;
    }
    return false;
  }
  const onOnline = () => retryNow();
  const onVisible = () => {
    if (document.visibilityState === "visible") retryNow();
  };
  window.addEventListener("online", onOnline);
  document.addEventListener("visibilitychange", onVisible);

  // ------------------------------------------------------------- messages
  function onMessage(message) {
    if (message.type === "state") onState(message);
    else if (message.type === "error") onError(message);
  }

  function onState(message) {
    const first = !S.joined;
    S.joined = true;
    S.everConnected = true;
    S.attempts = 0;
    page.banner(null);
    const before = S.state;
    const wasMyTurn = myTurn();
    const previousHand = S.hand;
    const previousSelected = selectedCards();
    S.state = message;
    if (message.seat !== undefined && message.seat !== null) S.me = message.seat;
    else if (!S.token) S.me = null;
    const fresh = [];
    for (const event of message.events || []) {
      if (event.number <= S.lastNumber) continue;
      S.events.push(event);
      S.lastNumber = event.number;
      fresh.push(event);
      trackFresh(event);
    }
    if (S.events.length > LOG_LIMIT) S.events.splice(0, S.events.length - LOG_LIMIT);
    const tableRules = message.table && message.table.rules ? message.table.rules.data : null;
    const rulesData = tableRules ?? (message.view ? message.view.rules : null);
    S.rules = resolveRules(rulesData ?? (message.table && message.table.rules ? message.table.rules.name : "classic"), S.presets);
    // the hand, keeping the selection on the same cards
    const v = message.view;
    const mine = v && isSeated() && Array.isArray(v.hands?.[S.me]) ? v.hands[S.me] : [];
    S.hand = sortHand(mine, S.rules, S.sort);
    if (S.pending !== null && message.version > S.pending) {
      S.pending = null;
      S.selected = [];
      S.choices = null;
      S.error = null;
    } else if (previousHand.length) {
      S.selected = reselect(previousSelected);
    }
    if (S.cursor >= S.hand.length) S.cursor = Math.max(0, S.hand.length - 1);
    if (!myTurn()) {
      S.choices = null;
      if (S.error && fresh.length) S.error = null;
    }
    if (message.result) {
      if (!before || !before.result) {
        S.showResult = true;
        S.resultSeenAt = Date.now();
      }
    } else {
      S.resultSeenAt = null;
    }
    S.lastFlash = flashTargets(fresh);
    render();
    if (!first && fresh.length) {
      const told = fresh
        .filter((e) => e.seat !== S.me || e.kind !== "action")
        .flatMap((e) => eventWords(e, S.me, who))
        .map((line) => tplain(line.key, line.params));
      if (myTurn() && !wasMyTurn) told.push(t("turn.yours_short"));
      if (told.length) page.announce(told.join(". "));
    }
    if (myTurn() && !wasMyTurn && document.visibilityState !== "visible") ping();
  }

  function ping() {
    // a soft tone when the turn comes back to you while you look elsewhere
    if (getPref("sound", "on") !== "on") return;
    try {
      const context = new (window.AudioContext || window.webkitAudioContext)();
      const osc = context.createOscillator();
      const gain = context.createGain();
      osc.frequency.value = 660;
      gain.gain.setValueAtTime(0.0001, context.currentTime);
      gain.gain.exponentialRampToValueAtTime(0.15, context.currentTime + 0.02);
      gain.gain.exponentialRampToValueAtTime(0.0001, context.currentTime + 0.4);
      osc.connect(gain).connect(context.destination);
      osc.start();
      osc.stop(context.currentTime + 0.45);
    } catch {
      /* no sound, no harm */
    }
  }

  function reselect(cards) {
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

  function trackFresh(event) {
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

  function flashTargets(events) {
    const out = new Set();
    for (const event of events) {
      if (event.kind !== "action") continue;
      const p = actionParts(event.action || "");
      const team = teamOf(event.seat);
      if (p.kind === "add") out.add(`${team}:${p.meld}`);
      if (p.kind === "meld") out.add(`${team}:${teamMelds(team).length}`);
      if (p.kind === "take" || p.kind === "discard") out.add("pile");
    }
    return out;
  }

  function onError(message) {
    S.pending = null;
    let text = message.message || message.code || "";
    if (message.code === "stale") text = t("error.stale");
    else if (message.rule && !text.startsWith(message.rule) && message.rule !== "notation") text = `${message.rule}: ${text}`;
    S.error = { text, code: message.code, rule: message.rule || null };
    render();
    page.announce(t("error.refused", { message: text }));
  }

  // -------------------------------------------------------------- actions
  function sendAction(text) {
    if (!S.state || S.pending !== null) return;
    S.error = null;
    S.choices = null;
    if (!send({ type: "action", action: text, version: S.state.version })) {
      S.error = { text: t("conn.not_sent") };
      render();
      return;
    }
    S.pending = S.state.version;
    render();
  }

  function offerChoices(title, items) {
    S.choices = { title, items, focus: 0 };
    render();
    const first = choicesBox.querySelector("[data-testid=choice]");
    if (first) first.focus({ preventScroll: true });
  }

  function choiceWords(p) {
    const words = [];
    for (const token of p.tokens) {
      const { card, slot } = placed(token);
      if (slot) words.push(t("choice.wild_as", { wild: cardText(card), slot: cardText(slot) }));
    }
    if (p.end) {
      let wild = t("choice.the_wild");
      if (p.kind === "add") {
        const tokens = teamMelds(teamOf(S.me))[p.meld - 1] || [];
        const displaced = tokens.map(placed).find((c) => c.slot && p.cards.includes(c.slot));
        if (displaced) wild = cardText(displaced.card);
      }
      const slot = endSlot(p);
      if (slot) words.push(t(p.end === "low" ? "choice.end_low_at" : "choice.end_high_at", { wild, slot: cardText(slot) }));
      else words.push(t(p.end === "low" ? "choice.end_low" : "choice.end_high", { wild }));
    }
    if (!words.length) words.push(p.kind === "meld" ? t("choice.as_written") : t("choice.add_as_written"));
    return words.join(" · ");
  }

  /** Where the wild an add displaces goes: the slot below or above the run once the cards are on. */
  function endSlot(p) {
    const tokens = teamMelds(teamOf(S.me))[p.meld - 1];
    if (!tokens) return null;
    const info = analyzeMeld(tokens, S.rules);
    if (info.kind !== "run" || !info.suit) return null;
    const codes = [...tokens, ...p.tokens].map(placed).map((c) => c.slot || c.card).filter((c) => c !== "JK" && suitOf(c) === info.suit);
    let positions = codes.map((c) => rankIndex(c) + 1);
    if (positions.includes(13) && positions.includes(1) && !positions.includes(2)) positions = positions.map((x) => (x === 1 ? 14 : x));
    const at = p.end === "low" ? Math.min(...positions) - 1 : Math.max(...positions) + 1;
    if (at < 1 || at > 14) return null;
    return "A23456789TJQKA"[at - 1] + info.suit;
  }

  function playOne(options, title) {
    if (!options.length) return;
    if (options.length === 1) {
      confirmThen(options[0]);
      return;
    }
    offerChoices(
      title,
      options.map((p) => ({ label: choiceWords(p), detail: p.kind === "meld" ? p.tokens : null, action: p.text, run: () => confirmThen(p) })),
    );
  }

  function confirmThen(p) {
    // Before the move players regret most: the last card discarded without going out (it takes the reserve, played next turn).
    if (p.kind === "discard" && S.hand.length === 1 && reserveOf(teamOf(S.me)) === null) {
      offerChoices(t("confirm.last_card"), [
        { label: t("confirm.discard_anyway", { card: cardText(p.cards[0]) }), action: p.text, run: () => sendAction(p.text) },
      ]);
      return;
    }
    sendAction(p.text);
  }

  function doAdd(meld = null) {
    const options = optionsFor("add");
    if (!options.length) return;
    const targets = [...new Set(options.map((p) => p.meld))].sort((a, b) => a - b);
    if (meld !== null) {
      if (targets.includes(meld)) playOne(options.filter((p) => p.meld === meld), t("choice.how_add", { n: meld }));
      return;
    }
    if (targets.length === 1) {
      playOne(options, t("choice.how_add", { n: targets[0] }));
      return;
    }
    const team = teamOf(S.me);
    offerChoices(
      t("choice.which_meld"),
      targets.map((n) => {
        const tokens = teamMelds(team)[n - 1] || [];
        return { label: t("choice.meld_n", { n, state: meldWords(analyzeMeld(tokens, S.rules)) }), detail: tokens, key: String(n), meld: n, run: () => doAdd(n) };
      }),
    );
  }

  function onButton(which) {
    if (buttons[which] && buttons[which].disabled) return;
    switch (which) {
      case "draw":
      case "take":
      case "pass":
        if (has(which)) sendAction(which);
        break;
      case "meld":
        playOne(optionsFor("meld"), t("choice.how_meld"));
        break;
      case "add":
        doAdd();
        break;
      case "discard":
        playOne(optionsFor("discard"), t("choice.how_discard"));
        break;
      default:
    }
  }

  function toggleCard(index) {
    const at = S.selected.indexOf(index);
    if (at >= 0) S.selected.splice(at, 1);
    else S.selected.push(index);
    S.cursor = index;
    S.choices = null;
    S.error = null;
    render();
  }

  function clearSelection() {
    S.selected = [];
    S.choices = null;
    S.error = null;
    render();
  }

  function toggleSort() {
    S.sort = S.sort === "suit" ? "rank" : "suit";
    setPref("sort", S.sort);
    const cards = selectedCards();
    S.hand = sortHand(S.hand, S.rules, S.sort);
    S.selected = reselect(cards);
    render();
  }

  // ------------------------------------------------------------ keyboard
  function onKey(event) {
    if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return;
    const target = event.target;
    if (target && (target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName))) return;
    if (pileDialog.open || helpDialog.open) return;
    const key = event.key;
    // Space and Enter keep their own meaning on a focused button or link (other than a card of the hand)
    const onControl = target && target.closest && target.closest("button, a, summary, [role=button]") && !target.closest("[data-testid=hand-card]");
    if (onControl && (key === " " || key === "Spacebar" || key === "Enter") && !(S.choices && key === "Enter")) return;
    if (S.choices) {
      const items = [...choicesBox.querySelectorAll("[data-testid=choice]")];
      const at = items.indexOf(document.activeElement);
      if (key === "ArrowDown" || key === "ArrowRight") {
        event.preventDefault();
        (items[(at + 1) % items.length] || items[0]).focus();
        return;
      }
      if (key === "ArrowUp" || key === "ArrowLeft") {
        event.preventDefault();
        (items[(at - 1 + items.length) % items.length] || items[0]).focus();
        return;
      }
      if (key === "Enter") {
        event.preventDefault();
        (items[at] || items[0]).click();
        return;
      }
      if (key === "Escape") {
        event.preventDefault();
        S.choices = null;
        render();
        focusCursor();
        return;
      }
      const numbered = items.find((item) => item.dataset.key === key);
      if (numbered) {
        event.preventDefault();
        numbered.click();
        return;
      }
    }
    if (key === "ArrowLeft" || key === "ArrowRight") {
      if (!S.hand.length) return;
      event.preventDefault();
      S.cursor = (S.cursor + (key === "ArrowLeft" ? -1 : 1) + S.hand.length) % S.hand.length;
      S.focusHand = true;
      render();
      return;
    }
    if (key === "Home" || key === "End") {
      if (!S.hand.length) return;
      event.preventDefault();
      S.cursor = key === "Home" ? 0 : S.hand.length - 1;
      S.focusHand = true;
      render();
      return;
    }
    if (key === " " || key === "Spacebar") {
      if (!S.hand.length) return;
      event.preventDefault();
      S.focusHand = true;
      toggleCard(S.cursor);
      return;
    }
    if (key === "Escape") {
      event.preventDefault();
      clearSelection();
      return;
    }
    if (key === "?") {
      event.preventDefault();
      openHelp();
      return;
    }
    if (key === "Enter" && S.state && S.state.result && isSeated() && !nextDisabled()) {
      const next = $("#next-deal");
      if (next && document.activeElement === document.body) {
        event.preventDefault();
        next.click();
      }
      return;
    }
    const spec = BUTTONS.find((b) => b.key === key.toLowerCase());
    if (spec) {
      event.preventDefault();
      onButton(spec.id);
    }
  }
  document.addEventListener("keydown", onKey);

  function focusCursor() {
    const card = handBox.querySelector(`[data-index="${S.cursor}"]`);
    if (card) card.focus({ preventScroll: true });
  }

  // ------------------------------------------------------------- drawing
  function render() {
    const state = S.state;
    const hadFocusInHand = handBox.contains(document.activeElement) || S.focusHand;
    S.focusHand = false;
    renderTopbar();
    renderTurn();
    renderPlayers();
    renderPiles();
    renderBoard();
    renderSide();
    renderHandArea();
    if (hadFocusInHand && !S.choices) focusCursor();
    const mine = myTurn();
    page.title(mine ? t("title.your_turn") : state && tableInfo() ? presetLabel(String(tableInfo().rules.name).replace(/\*$/, "")) : t("table.title"));
    view.classList.toggle("my-turn", mine);
    view.classList.toggle("spectating", !isSeated());
    view.classList.toggle("offline", !S.joined);
  }

  function renderTopbar() {
    const info = tableInfo();
    if (!info) {
      page.setTopbar(null);
      return;
    }
    const name = String(info.rules.name || "");
    const totals = info.totals || [];
    page.setTopbar(
      h(
        "div",
        { class: "topbar-table" },
        h("span", { class: "topbar-rules" }, presetLabel(name.replace(/\*$/, "")) + (name.endsWith("*") ? " " + t("rules.changed") : "")),
        info.deals ? h("span", { class: "topbar-deal" }, t("table.deal_n", { n: info.deals })) : null,
        totals.length
          ? h(
              "span",
              { class: "topbar-score", "aria-label": t("table.match_score") },
              teamOrder().map((team, i) => [
                i ? h("span", { class: "sep", "aria-hidden": "true" }, " · ") : null,
                h("span", { class: `team-text team-${team}` }, h("span", { class: "score-name" }, `${teamShort(team)} `), h("span", { class: "visually-hidden" }, t("team.letter", { letter: teamLetter(team) }) + " "), String(totals[team] ?? 0)),
              ]),
            )
          : null,
      ),
    );
  }

  function renderTurn() {
    clear(turnLine);
    clear(lastLine);
    const state = S.state;
    const info = tableInfo();
    if (!state || !info) {
      turnLine.append(h("span", {}, t("conn.connecting")));
      return;
    }
    const v = viewData();
    let text;
    let cls = "";
    if (info.status === "over") {
      text = t("turn.match_over");
    } else if (!v) {
      const free = info.seats.filter((s) => s.kind === "person" && !s.name).length;
      text = free ? t("turn.waiting_seats", { n: free }) : t("turn.dealing");
    } else if (state.result) {
      text = t("turn.deal_over");
    } else if (myTurn()) {
      cls = "mine";
      if (has("pass")) text = t("turn.yours_empty_stock");
      else if (v.phase === "draw") text = t("turn.yours_draw");
      else text = t("turn.yours_play");
    } else if (isSeated() && v.to_move === S.me) {
      text = t("turn.yours_wait");
    } else {
      const seat = seatInfo(v.to_move);
      text = seat && seat.kind === "bot" ? t("turn.bot_playing", { who: nameOf(v.to_move) }) : t("turn.other", { who: nameOf(v.to_move) });
    }
    turnLine.className = `turn-line ${cls}`;
    turnLine.append(h("span", { class: "turn-text" }, cls ? h("span", { class: "turn-arrow", "aria-hidden": "true" }, "▶ ") : null, text));
    if (typeof state.clock === "number" && v && !state.result) {
      const clock = h("span", { class: "clock", id: "clock", "aria-label": t("clock.label") }, "");
      const endsAt = Date.now() + state.clock * 1000;
      const tick = () => {
        const left = Math.max(0, Math.round((endsAt - Date.now()) / 1000));
        clear(clock);
        clock.append(clockIcon(), " ", t("clock.left", { n: left }));
        clock.classList.toggle("urgent", left <= 10);
      };
      tick();
      clearInterval(S.clockTimer);
      S.clockTimer = setInterval(tick, 1000);
      turnLine.append(clock);
    } else {
      clearInterval(S.clockTimer);
    }
    if (state.result && !S.showResult) {
      turnLine.append(h("button", { type: "button", class: "small", id: "show-result", onclick: () => { S.showResult = true; render(); } }, t("result.show")));
    }
    if (info.status === "open" && !v) {
      const link = new URL(info.invite || `/t/${encodeURIComponent(id)}`, location.origin).href;
      const input = h("input", { id: "invite", type: "text", readonly: true, value: link, "aria-label": t("created.invite") });
      const copied = h("span", { class: "copied", role: "status" });
      turnLine.append(
        h(
          "span",
          { class: "invite-inline" },
          input,
          h("button", {
            type: "button",
            id: "copy-invite",
            class: "small",
            onclick: async () => {
              try {
                await navigator.clipboard.writeText(link);
                copied.textContent = t("created.copied");
              } catch {
                input.select();
                copied.textContent = document.execCommand("copy") ? t("created.copied") : t("created.copy_failed");
              }
            },
          }, t("created.copy")),
          copied,
        ),
      );
    }
    // the latest thing that happened, for the phone where the log is below
    const last = [...S.events].reverse().find((e) => e.kind === "action" || e.kind === "result");
    if (last) {
      for (const line of eventWords(last, S.me, who)) lastLine.append(tnode(line.key, line.params), " ");
    }
  }

  function renderPlayers() {
    clear(players);
    const info = tableInfo();
    if (!info) return;
    const v = viewData();
    const count = info.seats.length;
    const start = isSeated() ? S.me : 0;
    for (let k = 0; k < count; k += 1) {
      const seat = (start + k) % count;
      const s = info.seats[seat];
      const team = teamOf(seat);
      const hand = v && v.hands ? v.hands[seat] : null;
      const cards = Array.isArray(hand) ? hand.length : hand && typeof hand.count === "number" ? hand.count : null;
      const turn = v && !S.state.result && v.to_move === seat && info.status !== "over";
      const badges = [];
      // each badge has its words and a short form for narrow screens
      const badge = (cls, long, short) =>
        h("span", { class: `badge ${cls}${short ? "" : " no-short"}`, title: long }, h("span", { class: "badge-long" }, long), h("span", { class: "badge-short", "aria-hidden": "true" }, short));
      if (s.kind === "bot") badges.push(badge("bot", t("bot.badge"), ""));
      else if (s.stand_in) badges.push(badge("standin", "⚠ " + t("player.stand_in"), "⚠"));
      else if (!s.connected) badges.push(badge("offline", "⚠ " + t("player.offline"), "⚠"));
      if (v && v.dealer === seat) badges.push(badge("dealer", t("player.dealer_short"), t("player.dealer_letter")));
      const reserve = reserveOf(team);
      if (reserve && reserve.seat === seat) {
        badges.push(reserve.active ? badge("reserve", t("player.has_reserve"), t("player.reserve_letter")) : badge("reserve", t("player.reserve_next"), t("player.reserve_letter") + "…"));
      }
      const label = [
        who(seat),
        cards !== null ? t("player.cards", { n: cards }) : "",
        ...badges.map((b) => b.title.replace("⚠ ", "")),
        turn ? t("player.to_play") : "",
      ].filter(Boolean).join(", ");
      players.append(
        h(
          "li",
          { class: `player team-${team}${turn ? " turn" : ""}${seat === S.me ? " me" : ""}`, "data-testid": "player", "data-seat": seat, "aria-label": label, "aria-current": turn ? "true" : null },
          h("span", { class: "player-team", "aria-hidden": "true" }, teamLetter(team)),
          h("span", { class: "player-name" }, turn ? h("span", { class: "turn-arrow", "aria-hidden": "true" }, "▶ ") : null, who(seat)),
          cards !== null ? h("span", { class: "player-cards", title: t("player.cards", { n: cards }) }, cardBack("tiny-back"), String(cards)) : null,
          badges,
        ),
      );
    }
  }

  function renderPiles() {
    clear(piles);
    const v = viewData();
    if (!v) return;
    const stockCount = v.stock && typeof v.stock.count === "number" ? v.stock.count : Array.isArray(v.stock) ? v.stock.length : 0;
    const pile = v.discard || [];
    const top = pile.length ? pile[pile.length - 1] : null;
    const canDraw = has("draw") && S.pending === null;
    piles.append(
      h(
        "button",
        {
          type: "button",
          id: "stock",
          class: `pile-button${canDraw ? " can" : ""}`,
          "aria-label": t("stock.aria", { n: stockCount }) + (canDraw ? ". " + t("stock.draw_hint") : ""),
          onclick: () => { if (canDraw) sendAction("draw"); },
          "aria-disabled": canDraw ? null : "true",
        },
        h("span", { class: "pile-card" }, stockCount ? cardBack("stock-back") : h("span", { class: "empty-slot" })),
        h("span", { class: "pile-text" }, h("span", { class: "pile-title" }, t("stock.title")), h("span", { class: "pile-count" }, String(stockCount))),
      ),
      h(
        "button",
        {
          type: "button",
          id: "pile",
          class: `pile-button${S.lastFlash && S.lastFlash.has("pile") ? " flash" : ""}`,
          "aria-label": top ? t("pile.aria", { n: pile.length, card: cardName(top) }) : t("pile.empty"),
          onclick: openPile,
          "aria-haspopup": "dialog",
        },
        h("span", { class: "pile-card" }, top ? miniCard(top, S.rules) : h("span", { class: "empty-slot" })),
        h("span", { class: "pile-text" }, h("span", { class: "pile-title" }, t("pile.title")), h("span", { class: "pile-count" }, String(pile.length))),
      ),
    );
    const facts = [];
    const packets = Array.isArray(v.packets) ? v.packets.length : 0;
    facts.push(
      h(
        "span",
        { class: "fact packets", title: t("packets.help") },
        h("span", { class: "fact-long" }, t("packets.left", { n: packets })),
        h("span", { class: "fact-short", "aria-hidden": "true" }, cardBack("tiny-back"), cardBack("tiny-back"), ` ${packets}`),
      ),
    );
    if (v.trump) facts.push(h("span", { class: "fact trump" }, t("trump.label"), " ", h("span", { class: ["H", "D"].includes(v.trump) ? "ct red" : "ct black" }, SUIT_SYMBOLS[v.trump]), h("span", { class: "visually-hidden" }, t(`suit.${v.trump}`))));
    if (v.turn) facts.push(h("span", { class: "fact muted turn-number" }, t("table.turn_n", { n: v.turn })));
    if (v.last_round) facts.push(h("span", { class: "fact warn" }, t("table.last_round")));
    piles.append(h("div", { class: "facts" }, facts));
  }

  function openPile() {
    const v = viewData();
    const pile = v ? v.discard || [] : [];
    clear(pileDialog);
    const close = h("button", { type: "button", class: "small", id: "close-pile", onclick: () => pileDialog.close() }, t("dialog.close"));
    const takeButton = has("take") && S.pending === null
      ? h("button", { type: "button", class: "primary", id: "take-from-dialog", onclick: () => { pileDialog.close(); sendAction("take"); } }, t("pile.take", { n: pile.length }))
      : null;
    put(
      pileDialog,
      h("h2", { id: "pile-dialog-title" }, t("pile.whole", { n: pile.length })),
      pile.length
        ? h(
            "ol",
            { class: "pile-list", id: "pile-list", "aria-label": t("pile.order") },
            pile.map((card, i) => h("li", {}, cardFace(card, { wild: isWildKind(card, S.rules) && card !== "JK", label: cardName(card) + (i === pile.length - 1 ? `, ${t("pile.top")}` : "") }))),
          )
        : h("p", {}, t("pile.empty")),
      pile.length ? h("p", { class: "help" }, t("pile.order")) : null,
      h("div", { class: "row-actions" }, takeButton, close),
    );
    pileDialog.showModal();
  }

  function openHelp() {
    clear(helpDialog);
    const keys = [
      ["d", t("action.draw")], ["t", t("action.take")], ["p", t("action.pass")], ["m", t("action.meld")],
      ["a", t("help.key_add")], ["x", t("action.discard")], ["← →", t("help.key_move")], [t("help.space"), t("help.key_select")],
      ["Enter", t("help.key_enter")], ["Esc", t("help.key_esc")], ["?", t("help.open")],
    ];
    helpDialog.append(
      h(
        "div",
        { class: "dialog-head" },
        h("h2", { id: "help-title" }, t("help.title")),
        h("button", { type: "button", class: "small", id: "close-help", "aria-label": t("dialog.close"), onclick: () => helpDialog.close() }, "✕"),
      ),
      h("p", {}, t("help.rules_brief")),
      h("h3", {}, t("help.tap_title")),
      h("p", {}, t("help.tap")),
      h("h3", {}, t("help.keys")),
      h("dl", { class: "keys" }, keys.map(([k, what]) => [h("dt", {}, h("kbd", {}, k)), h("dd", {}, what)])),
      h(
        "label",
        { class: "check" },
        h("input", {
          type: "checkbox",
          id: "sound",
          checked: getPref("sound", "on") === "on",
          onchange: (e) => setPref("sound", e.target.checked ? "on" : "off"),
        }),
        " ",
        t("help.sound"),
      ),
      h("div", { class: "row-actions" }, h("button", { type: "button", class: "primary", onclick: () => helpDialog.close() }, t("dialog.close"))),
    );
    helpDialog.showModal();
  }

  function renderBoard() {
    clear(board);
    const state = S.state;
    if (!state) {
      board.append(h("p", { class: "muted center" }, t("conn.connecting")));
      return;
    }
    if (state.result && S.showResult) board.append(renderResult());
    else if (tableInfo() && tableInfo().status === "over") board.append(renderMatchOver());
    const v = viewData();
    if (!v) {
      board.append(h("div", { class: "waiting" }, h("p", {}, t("board.waiting"))));
      return;
    }
    const teamsBox = h("div", { class: `teams teams-${teams().length}` });
    const addTargets = myTurn() ? new Set(optionsFor("add").map((p) => p.meld)) : new Set();
    const myTeam = isSeated() ? teamOf(S.me) : null;
    for (const team of teamOrder()) {
      const melds = teamMelds(team);
      const laid = (v.laid_whole && v.laid_whole[team]) || [];
      const infos = melds.map((tokens) => analyzeMeld(tokens, S.rules));
      let points = 0;
      infos.forEach((info, i) => {
        points += meldValue(info, S.rules) + meldBonus(info, S.rules, v.trump, laid.includes(i));
      });
      const reserve = reserveOf(team);
      let reserveText;
      if (!reserve) reserveText = t("reserve.not_taken");
      else reserveText = reserve.active ? t("reserve.taken_by", { who: who(reserve.seat) }) : t("reserve.next_turn", { who: who(reserve.seat) });
      const biribas = infos.filter((i) => i.biriba).length;
      const total = v.match_scores ? v.match_scores[team] ?? 0 : 0;
      const minimum = openingMinimum(S.rules, total);
      const opening = minimum && (!melds.length || (team === myTeam && myTurn() && melds.length === (v.turn_melds || 0)))
        ? h("p", { class: "opening" }, t("opening.needs", { n: minimum }), team === myTeam && v.opening_value ? " " + t("opening.so_far", { n: v.opening_value }) : "")
        : null;
      const list = h("ol", { class: "meld-list" });
      infos.forEach((info, i) => {
        const number = i + 1;
        const target = team === myTeam && addTargets.has(number);
        const bonus = meldBonus(info, S.rules, v.trump, laid.includes(i));
        const stateText = meldWords(info);
        const toGo = !info.biriba && info.kind !== "wild" && (info.kind === "run" || (S.rules.set_biribas || "all") === "all" || ((S.rules.set_biribas === "aces") && info.rank === "A"))
          ? (S.rules.biriba_size || 7) - info.size
          : 0;
        const label = t("meld.aria", { n: number, state: stateText, cards: melds[i].map(tokenName).join(", ") });
        const attrs = {
          class: `meld ${info.kind}${info.biriba ? (info.clean ? " biriba clean" : " biriba dirty") : ""}${target ? " target" : ""}${S.lastFlash && S.lastFlash.has(`${team}:${number}`) ? " flash" : ""}`,
          "data-testid": "meld",
          "data-team": team,
          "data-index": number,
          "aria-label": label,
        };
        if (target) {
          attrs.role = "button";
          attrs.tabindex = 0;
          attrs.onclick = () => doAdd(number);
          attrs.onkeydown = (e) => {
            if (e.key === "Enter" || e.key === " ") {
              e.preventDefault();
              e.stopPropagation();
              doAdd(number);
            }
          };
        }
        list.append(
          h(
            "li",
            attrs,
            h("span", { class: "meld-num", "aria-hidden": "true" }, String(number)),
            h("span", { class: `meld-cards${info.size > 8 ? " long" : ""}`, "aria-hidden": "true" }, melds[i].map((token) => miniCard(token, S.rules))),
            h(
              "span",
              { class: "meld-state", "aria-hidden": "true" },
              info.biriba ? h("span", { class: "biriba-mark" }, info.clean ? "★ " : "☆ ") : null,
              stateText,
              bonus ? h("span", { class: "meld-bonus" }, ` +${bonus}`) : null,
              toGo > 0 && toGo <= 2 ? h("span", { class: "meld-togo" }, " · " + t("meld.to_go", { n: toGo })) : null,
              target ? h("span", { class: "meld-add" }, " · " + t("meld.tap_to_add")) : null,
            ),
          ),
        );
      });
      if (!melds.length) list.append(h("li", { class: "no-melds muted" }, t("board.no_melds")));
      teamsBox.append(
        h(
          "section",
          { class: `team-panel team-${team}${team === myTeam ? " mine" : ""}`, "data-testid": "team", "data-team": team, "aria-label": teamLabel(team) },
          h(
            "header",
            { class: "team-head" },
            h("h2", {}, h("span", { class: "team-letter", "aria-hidden": "true" }, teamLetter(team)), " ", teamLabel(team)),
            h(
              "p",
              { class: "team-facts" },
              h("span", { class: "team-points", "data-testid": "team-points" }, t("team.on_table", { n: points })),
              biribas ? h("span", {}, t("team.biribas", { n: biribas })) : null,
              h("span", { class: reserve ? "reserve taken" : "reserve" }, reserveText),
            ),
            opening,
          ),
          list,
        ),
      );
    }
    board.append(teamsBox);
  }

  function nextDisabled() {
    const info = tableInfo();
    return !isSeated() || !info || info.status === "over" || !S.joined;
  }

  function breakdownTable(result, caption) {
    const order = teamOrder();
    const keys = ["melds", "bonuses", "hands", "going_out", "reserve", "cut", "total"].filter((k) => result.breakdown[0] && k in result.breakdown[0]);
    return h(
      "table",
      { class: "breakdown", id: "breakdown" },
      caption ? h("caption", {}, caption) : null,
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, ""), order.map((team) => h("th", { scope: "col", class: `team-text team-${team}` }, teamShort(team))))),
      h(
        "tbody",
        {},
        keys.map((key) =>
          h(
            "tr",
            { class: key === "total" ? "total" : "" },
            h("th", { scope: "row" }, t(`part.${key}`)),
            order.map((team) => {
              const value = result.breakdown[team] ? result.breakdown[team][key] : 0;
              return h("td", { class: value < 0 ? "neg" : "" }, value > 0 ? `+${value}` : String(value));
            }),
          ),
        ),
      ),
    );
  }

  function winnerText(winners, match) {
    const list = winners || [];
    if (list.length > 1) return t(match ? "result.match_tied" : "result.tied", { teams: list.map(teamShort).join(" & ") });
    const team = list[0];
    if (team === undefined) return "";
    if (isSeated() && teamOf(S.me) === team) return t(match ? "result.match_we_win" : "result.we_win");
    return t(match ? "result.match_they_win" : "result.they_win", { team: teamShort(team) });
  }

  function renderResult() {
    const state = S.state;
    const result = state.result;
    const info = tableInfo();
    const over = info && info.status === "over";
    const deal = info ? info.deals : "";
    const panel = h("section", { class: "result-panel", id: "result", "aria-labelledby": "result-title" });
    if (over) panel.append(h("p", { class: "winner big", id: "match-winner" }, winnerText(state.winners || winnersFromTotals(), true)));
    panel.append(
      h("h2", { id: "result-title" }, t("result.title", { n: deal, how: t(`ended.${result.ended_by}`) })),
      h("p", { class: "winner" }, winnerText(result.winners, false)),
      breakdownTable(result),
    );
    if (info && info.totals) {
      panel.append(h("p", { class: "totals" }, t("result.totals"), " ", teamOrder().map((team, i) => [i ? " · " : "", h("strong", { class: `team-text team-${team}` }, `${teamShort(team)} ${info.totals[team]}`)])));
    }
    const row = h("div", { class: "row-actions" });
    if (over) {
      panel.insertBefore(h("div", { class: "row-actions" }, matchOverLinks()), panel.children[1]);
    } else if (isSeated()) {
      const pause = info && info.settings && typeof info.settings.deal_pause === "number" ? info.settings.deal_pause : 15;
      const left = S.resultSeenAt ? Math.max(0, Math.round(pause - (Date.now() - S.resultSeenAt) / 1000)) : pause;
      const button = h(
        "button",
        { type: "button", id: "next-deal", class: "primary big", disabled: nextDisabled(), onclick: () => { send({ type: "next" }); button.disabled = true; } },
        t("result.next"),
      );
      row.append(button);
      const countdown = h("span", { class: "muted countdown" }, t("result.auto", { n: left }));
      row.append(countdown);
      clearInterval(S.countdownTimer);
      S.countdownTimer = setInterval(() => {
        const l = S.resultSeenAt ? Math.max(0, Math.round(pause - (Date.now() - S.resultSeenAt) / 1000)) : 0;
        countdown.textContent = t("result.auto", { n: l });
        if (!document.body.contains(countdown)) clearInterval(S.countdownTimer);
      }, 1000);
    } else {
      row.append(h("span", { class: "muted" }, t("result.next_soon")));
    }
    row.append(h("button", { type: "button", class: "small", id: "hide-result", onclick: () => { S.showResult = false; render(); } }, t("result.hide")));
    panel.append(row);
    return panel;
  }

  function winnersFromTotals() {
    const totals = (tableInfo() && tableInfo().totals) || [];
    const best = Math.max(...totals);
    return totals.map((v, i) => (v === best ? i : -1)).filter((i) => i >= 0);
  }

  function matchOverLinks() {
    return [
      h("a", { class: "button primary", id: "replay-link", href: `/t/${encodeURIComponent(id)}?replay`, "data-link": true }, t("result.replay")),
      h("a", { class: "button", id: "record", href: api.recordUrl(id), download: `biriba-${id}.json` }, t("result.record")),
      h("a", { class: "button", href: "/", "data-link": true }, t("nav.lobby")),
    ];
  }

  function renderMatchOver() {
    return h(
      "section",
      { class: "result-panel", id: "match-over" },
      h("h2", {}, t("turn.match_over")),
      h("p", { class: "winner big" }, winnerText(S.state.winners || winnersFromTotals(), true)),
      h("div", { class: "row-actions" }, matchOverLinks()),
    );
  }

  function renderSide() {
    clear(logList);
    let lastDeal = null;
    for (const event of S.events) {
      if (event.deal !== lastDeal && event.kind !== "deal") {
        lastDeal = event.deal;
      }
      if (event.kind === "deal") lastDeal = event.deal;
      const lines = eventWords(event, S.me, who);
      if (!lines.length) continue;
      const item = h("li", { class: `log-${event.kind}${event.seat === S.me ? " mine" : ""}${event.seat !== undefined ? ` team-${teamOf(event.seat)}` : ""}` });
      lines.forEach((line, i) => {
        if (i) item.append(" ");
        item.append(tnode(line.key, line.params));
      });
      logList.append(item);
    }
    if (!logList.children.length) logList.append(h("li", { class: "muted" }, t("log.empty")));
    requestAnimationFrame(() => {
      logList.scrollTop = logList.scrollHeight;
    });
    clear(sheetBox);
    const sheet = (S.state && S.state.sheet) || [];
    const order = teamOrder();
    const rules = S.rules || {};
    const table = h(
      "table",
      { id: "sheet", class: "sheet" },
      h("caption", { class: "visually-hidden" }, t("sheet.title")),
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t("sheet.deal")), order.map((team) => h("th", { scope: "col", class: `team-text team-${team}` }, teamShort(team))))),
      h(
        "tbody",
        {},
        sheet.length
          ? sheet.map((row) =>
              h(
                "tr",
                {},
                h("th", { scope: "row" }, String(row.deal)),
                order.map((team) => {
                  const score = row.scores[team];
                  return h("td", {}, h("span", { class: score < 0 ? "neg" : "pos" }, score > 0 ? `+${score}` : String(score)), h("span", { class: "running" }, ` ${row.totals[team]}`));
                }),
              ),
            )
          : h("tr", {}, h("td", { colspan: order.length + 1, class: "muted empty" }, t("sheet.empty"))),
      ),
    );
    sheetBox.append(table);
    if (rules.target) sheetBox.append(h("p", { class: "help" }, t(rules.target_rule === "reach" ? "sheet.target_reach" : "sheet.target_exceed", { n: rules.target })));
    clear(rulesBox);
    const info = tableInfo();
    if (info && info.rules && info.rules.words) {
      rulesBox.append(h("details", { class: "side-panel rules-words" }, h("summary", {}, t("table.rules")), h("ul", {}, info.rules.words.map((w) => h("li", {}, w)))));
    }
  }

  function renderHandArea() {
    const v = viewData();
    // error
    errorLine.hidden = !S.error;
    clear(errorLine);
    if (S.error) {
      errorLine.append(
        h("span", { class: "error-label" }, t("error.not_allowed")),
        " ",
        h("span", { class: "error-text" }, S.error.text),
        h("button", { type: "button", class: "link small", "aria-label": t("dialog.close"), onclick: () => { S.error = null; render(); } }, "✕"),
      );
    }
    // choices
    clear(choicesBox);
    choicesBox.hidden = !S.choices;
    if (S.choices) {
      choicesBox.append(h("p", { class: "choices-title", id: "choices-title" }, S.choices.title));
      choicesBox.setAttribute("aria-labelledby", "choices-title");
      const list = h("div", { class: "choice-list" });
      S.choices.items.forEach((item, i) => {
        list.append(
          h(
            "button",
            { type: "button", class: "choice", "data-testid": "choice", "data-action": item.action || "", "data-key": item.key || String(i + 1), onclick: () => item.run() },
            h("span", { class: "choice-key", "aria-hidden": "true" }, item.key || String(i + 1)),
            h("span", { class: "choice-label" }, item.label),
            item.detail ? h("span", { class: "choice-detail" }, cardsInline(item.detail)) : null,
          ),
        );
      });
      list.append(h("button", { type: "button", class: "choice cancel", id: "cancel-choice", onclick: () => { S.choices = null; render(); focusCursor(); } }, t("choice.cancel")));
      choicesBox.append(list);
    }
    // hand
    renderHand();
    // buttons
    const seated = isSeated();
    handArea.hidden = false;
    buttonRow.hidden = !seated || !v || (tableInfo() && tableInfo().status === "over");
    const idle = S.pending !== null || !S.joined;
    const enabled = {
      draw: has("draw"),
      take: has("take"),
      pass: has("pass"),
      meld: optionsFor("meld").length > 0,
      add: optionsFor("add").length > 0,
      discard: optionsFor("discard").length > 0,
    };
    for (const spec of BUTTONS) {
      const button = buttons[spec.id];
      button.disabled = idle || !enabled[spec.id];
      button.classList.toggle("unused", !has(spec.id) && !parts().some((p) => p.kind === spec.id));
    }
    const pileSize = v && v.discard ? v.discard.length : 0;
    const takeCount = buttons.take.querySelector(".count") || h("span", { class: "count", "aria-hidden": "true" });
    takeCount.textContent = pileSize ? String(pileSize) : "";
    takeCount.hidden = !pileSize;
    buttons.take.append(takeCount);
    buttons.take.setAttribute("aria-label", pileSize ? t("action.take_n", { n: pileSize }) : t("action.take"));
    sortButton.textContent = S.sort === "suit" ? t("sort.by_rank") : t("sort.by_suit");
    sortButton.setAttribute("aria-label", S.sort === "suit" ? t("sort.by_rank_aria") : t("sort.by_suit_aria"));
    sortButton.hidden = !seated || !S.hand.length;
    // prompt
    clear(prompt);
    if (!seated) {
      const info = tableInfo();
      const free = info ? info.seats.some((s) => s.kind === "person" && !s.name) : false;
      prompt.append(t("spectator.watching"), " ");
      if (free) prompt.append(h("a", { href: `/t/${encodeURIComponent(id)}`, "data-link": true, id: "sit-down" }, t("spectator.sit")));
      return;
    }
    if (S.pending !== null) {
      prompt.append(t("prompt.sending"));
      return;
    }
    if (!myTurn()) {
      const info = tableInfo();
      if (info && info.status === "over") prompt.append(t("prompt.match_over"));
      else if (S.state && S.state.result) prompt.append(t("prompt.deal_over"));
      else prompt.append(v ? t("prompt.wait") : "");
      return;
    }
    const chosen = selectedCards();
    if (v.phase === "draw") prompt.append(t("prompt.draw"));
    else if (!chosen.length) prompt.append(t("prompt.select"));
    else if (enabled.meld || enabled.add || enabled.discard) {
      const can = [];
      if (enabled.meld) can.push(t("action.meld"));
      if (enabled.add) can.push(t("prompt.add_to", { melds: [...new Set(optionsFor("add").map((p) => p.meld))].join(", ") }));
      if (enabled.discard) can.push(t("action.discard"));
      prompt.append(t("prompt.can", { n: chosen.length, what: can.join(" · ") }));
    } else prompt.append(t("prompt.no_match", { n: chosen.length }));
  }

  function renderHand() {
    clear(handBox);
    const v = viewData();
    if (!isSeated() || !v) {
      handBox.hidden = true;
      return;
    }
    handBox.hidden = false;
    handBox.setAttribute("aria-label", t("hand.label", { n: S.hand.length }));
    if (!S.hand.length) {
      handBox.append(h("p", { class: "muted" }, t("hand.empty")));
      return;
    }
    const freshLeft = [...S.fresh];
    const cards = S.hand.map((card, i) => {
      const selected = S.selected.includes(i);
      const freshAt = freshLeft.indexOf(card);
      const isFresh = freshAt >= 0;
      if (isFresh) freshLeft.splice(freshAt, 1);
      const wild = isWildKind(card, S.rules);
      let label = cardName(card);
      if (wild && card !== "JK") label += `, ${t("card.wild")}`;
      if (isFresh) label += `, ${t("card.new")}`;
      const group = handGroup(card, S.rules);
      const previous = i ? handGroup(S.hand[i - 1], S.rules) : group;
      return h(
        "button",
        {
          type: "button",
          class: `hand-card${selected ? " selected" : ""}${isFresh ? " fresh" : ""}${i === S.cursor ? " cursor" : ""}${S.sort === "suit" && group !== previous ? " group-start" : ""}`,
          "data-testid": "hand-card",
          "data-card": card,
          "data-index": i,
          "aria-pressed": selected ? "true" : "false",
          "aria-label": label,
          tabindex: i === S.cursor ? 0 : -1,
          onclick: () => toggleCard(i),
          onfocus: () => {
            S.cursor = i;
            for (const other of handBox.querySelectorAll(".hand-card.cursor")) other.classList.remove("cursor");
            handBox.querySelector(`[data-index="${i}"]`)?.classList.add("cursor");
          },
        },
        cardFace(card, { wild: wild && card !== "JK", label }),
        selected ? h("span", { class: "tick", "aria-hidden": "true" }, "✓") : null,
        isFresh ? h("span", { class: "new-tag", "aria-hidden": "true" }, t("card.new_tag")) : null,
      );
    });
    layoutHand(cards);
  }

  function layoutHand(cards) {
    const width = (handBox.clientWidth || view.clientWidth || 360) - 4;
    const style = getComputedStyle(view);
    const cardW = parseFloat(style.getPropertyValue("--card-w")) || 56;
    const gap = 4;
    const groupGap = 8;
    const minStep = Math.max(18, cardW * 0.36);
    const roomy = (cards.length > 1 ? (width - cardW) / (cards.length - 1) : cardW) >= cardW * 0.6;
    const starts = (row) => (roomy ? row.filter((card) => card.classList.contains("group-start")).length : 0);
    let rows = 1;
    let perRow = cards.length;
    const stepFor = (count, groups) => (count > 1 ? (width - cardW - groups * groupGap) / (count - 1) : cardW);
    let step = stepFor(perRow, starts(cards));
    while (step < minStep && rows < 4) {
      rows += 1;
      perRow = Math.ceil(cards.length / rows);
      step = Math.min(...Array.from({ length: rows }, (_, r) => { const row = cards.slice(r * perRow, (r + 1) * perRow); return stepFor(row.length, starts(row)); }));
    }
    step = Math.min(step, cardW + gap);
    // each card's button is as wide as the part of it that shows, so that a tap (or a test's click
    // at the button's centre) lands on the card it means; the picture overflows under the next card
    handBox.style.setProperty("--slot", `${Math.min(step, cardW)}px`);
    handBox.style.setProperty("--overlap", `${Math.max(0, step - cardW)}px`);
    handBox.style.setProperty("--group-gap", roomy ? `${groupGap}px` : "0px");
    handBox.classList.toggle("rows", rows > 1);
    for (let r = 0; r < rows; r += 1) {
      const row = cards.slice(r * perRow, (r + 1) * perRow);
      if (row[0]) row[0].classList.remove("group-start");
      handBox.append(h("div", { class: "hand-row" }, row));
    }
  }

  const resize = new ResizeObserver(() => {
    if (S.state && isSeated()) {
      const focus = handBox.contains(document.activeElement);
      renderHand();
      if (focus) focusCursor();
    }
  });
  resize.observe(handBox);

  // --------------------------------------------------------------- start
  render();
  api
    .rules()
    .then((rules) => {
      S.presets = rules.presets || null;
      if (S.state) {
        const data = S.state.table && S.state.table.rules ? S.state.table.rules.data ?? S.state.table.rules.name : "classic";
        S.rules = resolveRules(data, S.presets);
        S.hand = sortHand(S.hand, S.rules, S.sort);
        render();
      }
    })
    .catch(() => {});
  connect();

  return () => {
    S.stopped = true;
    clearTimeout(S.retryTimer);
    clearInterval(S.pingTimer);
    clearInterval(S.clockTimer);
    clearInterval(S.countdownTimer);
    resize.disconnect();
    document.removeEventListener("keydown", onKey);
    window.removeEventListener("online", onOnline);
    document.removeEventListener("visibilitychange", onVisible);
    if (S.ws) {
      const socket = S.ws;
      S.ws = null;
      try {
        socket.close(1000);
      } catch {
        /* already closed */
      }
    }
  };
}

export { meldWords, sameCards };
