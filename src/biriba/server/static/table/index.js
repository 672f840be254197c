// The table: one WebSocket (docs/protocol.md), the last state kept on screen
// while it reconnects, the teams' melds, the pile and stock, the players, the
// story of the deal, the score sheet, the result, and the hand with its
// buttons (enabled from `legal`), by touch, mouse or keyboard.
//
// The parts share one context: {S, id, page, view, el, timers, render, send}
// (S the model of model.js, el the screen's elements); each module draws or
// handles its part from it.

import { getPref, storedSeat } from "../api.js";
import { h } from "../dom.js";
import { t } from "../i18n.js";
import { presetLabel } from "../lobby.js";
import { eventWords, tplain } from "../words.js";
import { renderBoard } from "./board.js";
import { openConnection } from "./connection.js";
import { openHelp } from "./dialogs.js";
import { makeButtons, renderHand, renderHandArea } from "./hand.js";
import { focusCursor, onKey } from "./input.js";
import * as M from "./model.js";
import { renderSide } from "./sheet.js";
import { renderPiles, renderPlayers, renderTopbar, renderTurn } from "./strip.js";

/** The screen's elements, in their places. */
function skeleton(view) {
  const el = {
    turnLine: h("div", { class: "turn-line", id: "turn", role: "status" }),
    lastLine: h("div", { class: "last-event", id: "last-event" }),
    players: h("ul", { class: "players", id: "players", "aria-label": t("players.title") }),
    piles: h("div", { class: "piles", id: "piles" }),
    board: h("section", { class: "board", id: "board", "aria-label": t("board.title") }),
    logList: h("ol", { class: "log", id: "log" }),
    sheetBox: h("div", { class: "sheet-box" }),
    rulesBox: h("div", { class: "rules-box" }),
    prompt: h("p", { class: "prompt", id: "prompt" }),
    errorLine: h("p", { class: "error", id: "error", role: "alert", hidden: true }),
    choicesBox: h("div", { class: "choices", id: "choices", role: "group", hidden: true }),
    handBox: h("div", { class: "hand", id: "hand", role: "group" }),
    buttonRow: h("div", { class: "buttons", id: "buttons" }),
    pileDialog: h("dialog", { id: "pile-dialog", class: "dialog", "aria-labelledby": "pile-dialog-title" }),
    helpDialog: h("dialog", { id: "help-dialog", class: "dialog", "aria-labelledby": "help-title" }),
  };
  el.handArea = h("section", { class: "hand-area", id: "hand-area", "aria-label": t("hand.area") }, el.errorLine, el.choicesBox);
  const side = h(
    "aside",
    { class: "side", id: "side" },
    h("section", { class: "side-panel log-panel" }, h("h2", {}, t("log.title")), el.logList),
    h("section", { class: "side-panel" }, h("h2", {}, t("sheet.title")), el.sheetBox),
    el.rulesBox,
  );
  view.append(
    el.turnLine,
    h("div", { class: "strip" }, el.players, el.piles),
    el.lastLine,
    h("div", { class: "scroll", id: "scroll" }, el.board, side),
    el.handArea,
    el.pileDialog,
    el.helpDialog,
  );
  return el;
}

/** A soft tone when the turn comes back to you while you look elsewhere. */
function chime() {
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
  renderHandArea(ctx);
  if (hadFocusInHand && !S.choices) focusCursor(ctx);
  const mine = M.myTurn(S);
  const info = M.tableInfo(S);
  ctx.page.title(mine ? t("title.your_turn") : info ? presetLabel(String(info.rules.name).replace(/\*$/, "")) : t("table.title"));
  view.classList.toggle("my-turn", mine);
  view.classList.toggle("spectating", !M.isSeated(S));
  view.classList.toggle("offline", !S.joined);
}

function onState(ctx, message) {
  const { S, page } = ctx;
  const { first, fresh, wasMyTurn } = M.applyState(S, message);
  ctx.render();
  const nowMine = M.myTurn(S) && !wasMyTurn;
  if (!first && fresh.length) {
    const told = fresh
      .filter((e) => e.seat !== S.me || e.kind !== "action")
      .flatMap((e) => eventWords(e, S.me, (seat) => M.who(S, seat)))
      .map((line) => tplain(line.key, line.params));
    if (nowMine) told.push(t("turn.yours_short"));
    if (told.length) page.announce(told.join(". "));
  }
  if (nowMine && document.visibilityState !== "visible") chime();
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
    timers: { clock: null, countdown: null },
    render: () => render(ctx),
    send: () => false,
  };
  makeButtons(ctx);
  ctx.el.handArea.append(h("div", { class: "prompt-row" }, ctx.el.prompt, ctx.el.sortButton), ctx.el.handBox, ctx.el.buttonRow);
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
  render(ctx);
  const connection = openConnection(ctx, (message) => {
    if (message.type === "state") onState(ctx, message);
    else if (message.type === "error") {
      const text = M.applyError(ctx.S, message);
      ctx.render();
      page.announce(t("error.refused", { message: text }));
    }
  });
  ctx.send = connection.send;

  return () => {
    connection.stop();
    clearInterval(ctx.timers.clock);
    clearInterval(ctx.timers.countdown);
    resize.disconnect();
    document.removeEventListener("keydown", keydown);
  };
}
