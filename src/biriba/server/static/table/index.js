// The table: one WebSocket (docs/protocol.md), the last state kept on screen
// while it reconnects, the teams' melds, the pile and stock, the players, the
// story of the deal, the score sheet, the result, and the hand with its
// buttons (enabled from `legal`), by touch, mouse or keyboard.
//
// The parts share one context: {S, id, page, view, el, timers, render, send}
// (S the model of model.js, el the screen's elements); each module draws or
// handles its part from it.

import { getPref, storeSeat, storedMutes, storedSeat } from "../api.js";
import { h } from "../dom.js";
import { t } from "../i18n.js";
import { presetLabel } from "../lobby.js";
import { actionWords, eventWords, tplain } from "../words.js";
import { renderBoard } from "./board.js";
import { chatError, hearChat, renderChat } from "./chat.js";
import { openConnection } from "./connection.js";
import { openHelp } from "./dialogs.js";
import { makeButtons, renderHand, renderHandArea } from "./hand.js";
import { focusCursor, onKey } from "./input.js";
import * as M from "./model.js";
import { handPlaces, showMoves } from "./motion.js";
import { onRematch, renderResultDialog, renderSide } from "./sheet.js";
import { closeSide, makeSide, wireSide } from "./side.js";
import { play, soundsOf } from "./sound.js";
import { makeTools, renderPiles, renderPlayers, renderTools, renderTopbar, renderTurn } from "./strip.js";

/** The screen's elements, in their places (screens.css lays them out per screen size). */
function skeleton(view) {
  const el = {
    turnLine: h("div", { class: "turn-line", id: "turn", role: "status" }),
    lastLine: h("div", { class: "last-event", id: "last-event" }),
    players: h("ul", { class: "players", id: "players", "aria-label": t("players.title") }),
    piles: h("div", { class: "piles", id: "piles" }),
    board: h("section", { class: "board", id: "board", "aria-label": t("board.title") }),
    logList: h("ol", { class: "log", id: "log", tabindex: 0, "aria-label": t("log.title") }),  // scrolls: reachable by keys
    sheetBox: h("div", { class: "sheet-box" }),
    rulesBox: h("div", { class: "rules-box" }),
    prompt: h("p", { class: "prompt", id: "prompt" }),
    errorLine: h("p", { class: "error", id: "error", role: "alert", hidden: true }),
    choicesBox: h("div", { class: "choices", id: "choices", role: "group", hidden: true }),
    handBox: h("div", { class: "hand", id: "hand", role: "group" }),
    buttonRow: h("div", { class: "buttons", id: "buttons" }),
    pileDialog: h("dialog", { id: "pile-dialog", class: "dialog", "aria-labelledby": "pile-dialog-title" }),
    helpDialog: h("dialog", { id: "help-dialog", class: "dialog", "aria-labelledby": "help-title" }),
    seatDialog: h("dialog", { id: "seat-dialog", class: "dialog", "aria-labelledby": "seat-dialog-title", "aria-describedby": "seat-dialog-text" }),
    meldDialog: h("dialog", { id: "meld-dialog", class: "dialog", "aria-labelledby": "meld-dialog-title" }),
    resultDialog: h("dialog", { id: "result-dialog", class: "dialog result-dialog", "aria-labelledby": "result-title" }),
    tools: h("div", { class: "table-tools", id: "table-tools", role: "toolbar", "aria-label": t("tools.label") }),
    watchers: h("p", { class: "watchers", id: "watchers", hidden: true }),
    hintLine: h("p", { class: "hint-line", id: "hint-line", role: "status", hidden: true }),
    chatList: h("ol", { class: "chat-log", id: "chat-log", "aria-live": "off" }),
    chatMuted: h("p", { class: "chat-muted", id: "chat-muted", hidden: true }),
    chatNote: h("p", { class: "chat-note help", id: "chat-note", hidden: true }),
    chatTools: h("div", { class: "chat-tools", id: "chat-tools" }),
  };
  el.chatPanel = h(
    "section",
    { class: "side-panel chat-panel", id: "chat", "data-tab": "chat", "aria-labelledby": "chat-title", tabindex: -1 },
    h("h2", { id: "chat-title" }, t("chat.title")),
    el.chatList,
    el.chatMuted,
    el.chatNote,
    el.chatTools,
  );
  el.handArea = h("section", { class: "hand-area", id: "hand-area", "aria-label": t("hand.area") }, el.errorLine, el.choicesBox, el.hintLine);
  el.side = makeSide(
    el,
    h("section", { class: "side-panel log-panel", id: "log-panel", "data-tab": "log", "aria-labelledby": "log-title" }, h("h2", { id: "log-title" }, t("log.title")), el.logList),
    el.chatPanel,
    h("section", { class: "side-panel sheet-panel", id: "sheet-panel", "data-tab": "sheet", "aria-labelledby": "sheet-title" }, h("h2", { id: "sheet-title" }, t("sheet.title")), el.sheetBox, el.rulesBox),
  );
  view.append(
    h("h1", { class: "visually-hidden" }, t("table.title")), // the page's heading, for readers
    h("div", { class: "turn-row" }, el.turnLine, el.tools),
    h("div", { class: "strip" }, h("div", { class: "people" }, el.players, el.watchers), el.piles),
    el.lastLine,
    el.board,
    el.side,
    el.handArea,
    el.pileDialog,
    el.helpDialog,
    el.seatDialog,
    el.meldDialog,
    el.resultDialog,
  );
  return el;
}

function hintAnnouncement(action) {
  const words = actionWords(action);
  return t("hint.text", { what: tplain(words.key, words.params) });
}

function render(ctx) {
  const { S, el, view } = ctx;
  const hadFocusInHand = el.handBox.contains(document.activeElement) || S.focusHand;
  S.focusHand = false;
  renderTopbar(ctx);
  renderTurn(ctx);
  renderPlayers(ctx);
  renderPiles(ctx);
  renderBoard(ctx);
  renderSide(ctx);
  renderChat(ctx);
  renderTools(ctx);
  renderHandArea(ctx);
  renderResultDialog(ctx);
  askWhy(ctx);
  if (hadFocusInHand && !S.choices) focusCursor(ctx);
  const mine = M.myTurn(S);
  const info = M.tableInfo(S);
  ctx.page.title(mine ? t("title.your_turn") : info ? presetLabel(String(info.rules.name).replace(/\*$/, "")) : t("table.title"));
  view.classList.toggle("my-turn", mine);
  view.classList.toggle("spectating", !M.isSeated(S));
  view.classList.toggle("offline", !S.joined);
}

/** Ask the engine why the picked cards make no move (debounced; an answer for an older pick is ignored). */
function askWhy(ctx) {
  const { S } = ctx;
  const request = M.explainRequest(S);
  const version = S.state ? S.state.version : null;
  if (!request) {
    clearTimeout(ctx.timers.why);
    S.asked = null;
    return;
  }
  if (S.asked && S.asked.action === request && S.asked.version === version) return;
  S.asked = { action: request, version };
  clearTimeout(ctx.timers.why);
  ctx.timers.why = setTimeout(() => {
    if (M.explainRequest(S) === request && S.state && S.state.version === version) {
      ctx.send({ type: "explain", action: request });
    } else {
      S.asked = null; // the pick or the table changed meanwhile: ask about what is there now
      askWhy(ctx);
    }
  }, 250);
}

/** After `leave`: the seat is no longer this browser's; forget its token and watch. */
function leftSeat(ctx, message) {
  const { S } = ctx;
  if (!S.leaving || (message.seat !== null && message.seat !== undefined)) return;
  S.leaving = false;
  storeSeat(ctx.id, null);
  S.token = null;
  S.me = null;
  S.hand = [];
  S.selected = [];
  S.choices = null;
  ctx.page.announce(t("seat.left"));
}

function onState(ctx, message) {
  const { S, page } = ctx;
  leftSeat(ctx, message);
  const handBefore = handPlaces(ctx);
  const boardBefore = S.state ? S.state.board : null;
  const { first, fresh, wasMyTurn } = M.applyState(S, message);
  ctx.render();
  const nowMine = M.myTurn(S) && !wasMyTurn;
  if (!first) {
    showMoves(ctx, fresh, handBefore);
    soundsOf(S, fresh, boardBefore, nowMine).forEach((name, i) => setTimeout(() => play(name), i * 180));
  }
  if (!first && fresh.length) {
    const told = fresh
      .filter((e) => e.seat !== S.me || e.kind !== "action")
      .flatMap((e) => eventWords(e, S.me, (seat) => M.who(S, seat), e.kind === "result" ? M.closerOf(S, e.deal) : null))
      .map((line) => tplain(line.key, line.params));
    if (nowMine) told.push(t("turn.yours_short"));
    if (told.length) page.announce(told.join(". "));
  }
}

export function showTable(page, id, watching = false) {
  const held = watching ? null : storedSeat(id);
  const view = page.view();
  view.className = "table-screen";
  const ctx = {
    S: M.createModel({ id, token: held ? held.token : null, me: held ? held.seat : null, sort: getPref("sort", "suit") }),
    id,
    page,
    view,
    el: skeleton(view),
    timers: { clock: null, countdown: null, why: null, bubbles: null, say: null, away: null },
    render: () => render(ctx),
    send: () => false,
  };
  ctx.S.muted = storedMutes(id);
  makeButtons(ctx);
  makeTools(ctx);
  const unwireSide = wireSide(ctx);
  const promptTools = h("div", { class: "prompt-tools" }, ctx.el.hintButton, ctx.el.sortButton);
  ctx.el.handArea.append(h("div", { class: "prompt-row" }, ctx.el.prompt, promptTools), ctx.el.handBox, ctx.el.buttonRow);
  page.setHelp(() => openHelp(ctx));
  const keydown = (event) => onKey(ctx, event);
  document.addEventListener("keydown", keydown);
  const resize = new ResizeObserver(() => {
    if (ctx.S.state && M.isSeated(ctx.S)) {
      const focus = ctx.el.handBox.contains(document.activeElement);
      renderHand(ctx);
      if (focus) focusCursor(ctx);
    }
  });
  resize.observe(ctx.el.handBox);
  // the chat's new lines are counted on its button while the panel is out of sight (the sheet closed on a phone)
  const sight = new IntersectionObserver((entries) => {
    ctx.chatInSight = entries.some((entry) => entry.isIntersecting);
    if (ctx.chatInSight && ctx.S.unread) {
      ctx.S.unread = 0;
      renderTools(ctx);
    }
  });
  sight.observe(ctx.el.chatPanel);
  render(ctx);
  const connection = openConnection(ctx, (message) => {
    const { S } = ctx;
    if (message.type === "state") onState(ctx, message);
    else if (message.type === "explained") {
      if (M.applyExplained(S, message)) ctx.render();
    } else if (message.type === "hint") {
      const p = M.applyHint(S, message);
      ctx.render();
      if (p) page.announce(hintAnnouncement(message.action));
    } else if (message.type === "presence") {
      if (M.applyPresence(S, message)) ctx.render();
    } else if (message.type === "said") {
      if (hearChat(ctx, message)) ctx.render();
    } else if (message.type === "rematch") {
      onRematch(ctx, message);
    } else if (message.type === "error") {
      if (M.applyHintError(S, message) || chatError(ctx, message)) {
        ctx.render();
        return;
      }
      if (S.rematchAsked) {
        S.rematchAsked = null;
        S.rematchNote = message.message || message.code;
        ctx.render();
        return;
      }
      if (S.leaving && message.code === "over") S.leaving = false;
      const text = M.applyError(S, message);
      ctx.render();
      page.announce(t("error.refused", { message: text }));
    }
  });
  ctx.send = connection.send;

  return () => {
    connection.stop();
    clearInterval(ctx.timers.clock);
    clearInterval(ctx.timers.countdown);
    clearInterval(ctx.timers.away);
    clearTimeout(ctx.timers.why);
    clearTimeout(ctx.timers.bubbles);
    clearTimeout(ctx.timers.say);
    clearTimeout(ctx.timers.hint);
    resize.disconnect();
    sight.disconnect();
    closeSide(ctx, false); // the top bar is never left inert behind a sheet that is gone
    unwireSide();
    document.removeEventListener("keydown", keydown);
  };
}
