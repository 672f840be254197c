// What the player does: the buttons, the keys, the choices where several
// legal actions use the picked cards (a wild's slot, the end a displaced wild
// goes to, which meld to add to), and the question before a risky discard.

import { setPref } from "../api.js";
import { cardText, placed } from "../cards.js";
import { t } from "../i18n.js";
import { meldWords } from "../words.js";
import { sendAction } from "./connection.js";
import { openHelp } from "./dialogs.js";
import * as M from "./model.js";
import { closeSide } from "./side.js";

/** The action buttons and their keys, in the order they are shown. */
export const BUTTONS = [
  { id: "draw", key: "d" },
  { id: "take", key: "t" },
  { id: "pass", key: "p" },
  { id: "meld", key: "m" },
  { id: "add", key: "a" },
  { id: "discard", key: "x" },
];

export function focusCursor(ctx) {
  const card = ctx.el.handBox.querySelector(`[data-index="${ctx.S.cursor}"]`);
  if (card) card.focus({ preventScroll: true });
}

function offerChoices(ctx, title, items) {
  ctx.S.choices = { title, items, focus: 0 };
  ctx.render();
  const first = ctx.el.choicesBox.querySelector("[data-testid=choice]");
  if (first) first.focus({ preventScroll: true });
}

/** The words that tell one legal action from the others with the same cards. */
export function choiceWords(S, p) {
  const words = [];
  for (const token of p.tokens) {
    const { card, slot } = placed(token);
    if (slot) words.push(t("choice.wild_as", { wild: cardText(card), slot: cardText(slot) }));
  }
  if (p.end) {
    let wild = t("choice.the_wild");
    if (p.kind === "add") {
      const tokens = M.teamMelds(S, M.teamOf(S, S.me))[p.meld - 1] || [];
      const displaced = tokens.map(placed).find((c) => c.slot && p.cards.includes(c.slot));
      if (displaced) wild = cardText(displaced.card);
    }
    const slot = S.state && S.state.wild_to ? S.state.wild_to[p.text] : null;
    if (slot) words.push(t(p.end === "low" ? "choice.end_low_at" : "choice.end_high_at", { wild, slot: cardText(slot) }));
    else words.push(t(p.end === "low" ? "choice.end_low" : "choice.end_high", { wild }));
  }
  if (!words.length) words.push(p.kind === "meld" ? t("choice.as_written") : t("choice.add_as_written"));
  return words.join(" · ");
}

function playOne(ctx, options, title) {
  if (!options.length) return;
  if (options.length === 1) {
    confirmThen(ctx, options[0]);
    return;
  }
  offerChoices(
    ctx,
    title,
    options.map((p) => ({ label: choiceWords(ctx.S, p), detail: p.kind === "meld" ? p.tokens : null, action: p.text, run: () => confirmThen(ctx, p) })),
  );
}

function confirmThen(ctx, p) {
  const { S } = ctx;
  // Before the move players regret most: the last card discarded without going out (it takes the reserve, played next turn).
  if (p.kind === "discard" && S.hand.length === 1 && M.reserveOf(S, M.teamOf(S, S.me)) === null) {
    offerChoices(ctx, t("confirm.last_card"), [
      { label: t("confirm.discard_anyway", { card: cardText(p.cards[0]) }), action: p.text, run: () => sendAction(ctx, p.text) },
    ]);
    return;
  }
  sendAction(ctx, p.text);
}

/** Add the picked cards: to meld number `meld`, or to the one meld they fit, or ask which. */
export function doAdd(ctx, meld = null) {
  const { S } = ctx;
  const options = M.optionsFor(S, "add");
  if (!options.length) return;
  const targets = [...new Set(options.map((p) => p.meld))].sort((a, b) => a - b);
  if (meld !== null) {
    if (targets.includes(meld)) playOne(ctx, options.filter((p) => p.meld === meld), t("choice.how_add", { n: meld }));
    return;
  }
  if (targets.length === 1) {
    playOne(ctx, options, t("choice.how_add", { n: targets[0] }));
    return;
  }
  const team = M.teamOf(S, S.me);
  const board = M.teamBoard(S, team);
  offerChoices(
    ctx,
    t("choice.which_meld"),
    targets.map((n) => {
      const tokens = M.teamMelds(S, team)[n - 1] || [];
      const info = board.melds[n - 1];
      const label = info ? t("choice.meld_n", { n, state: meldWords(info) }) : String(n);
      return { label, detail: tokens, key: String(n), meld: n, run: () => doAdd(ctx, n) };
    }),
  );
}

export function onButton(ctx, which) {
  const button = ctx.el.buttons[which];
  if (button && button.disabled) return;
  switch (which) {
    case "draw":
    case "take":
    case "pass":
      if (M.has(ctx.S, which)) sendAction(ctx, which);
      break;
    case "meld":
      playOne(ctx, M.optionsFor(ctx.S, "meld"), t("choice.how_meld"));
      break;
    case "add":
      doAdd(ctx);
      break;
    case "discard":
      playOne(ctx, M.optionsFor(ctx.S, "discard"), t("choice.how_discard"));
      break;
    default:
  }
}

/** Ask the server for a hint (the hard bot's choice); the button rests until the server's pace allows another. */
export function askHint(ctx) {
  const { S } = ctx;
  if (!M.myTurn(S) || S.pending !== null || (S.hint && S.hint.pending)) return;
  if (S.hintAt && Date.now() - S.hintAt < 5000) return;
  if (!ctx.send({ type: "hint" })) {
    S.hint = { note: t("conn.not_sent_hint"), version: S.state.version };
  } else {
    S.hint = { pending: true, version: S.state.version };
    S.hintAt = Date.now();
    clearTimeout(ctx.timers.hint);
    ctx.timers.hint = setTimeout(() => ctx.render(), 5050);
  }
  ctx.render();
}

export function toggleCard(ctx, index) {
  M.toggleCard(ctx.S, index);
  ctx.render();
}

export function toggleSort(ctx) {
  M.resort(ctx.S, ctx.S.sort === "suit" ? "rank" : "suit");
  setPref("sort", ctx.S.sort);
  ctx.render();
}

/** Keys while choices are offered: move between them, pick one by Enter or its digit, Esc. True when handled. */
function choiceKey(ctx, event) {
  const key = event.key;
  const items = [...ctx.el.choicesBox.querySelectorAll("[data-testid=choice]")];
  const at = items.indexOf(document.activeElement);
  let handled = true;
  if (key === "ArrowDown" || key === "ArrowRight") (items[(at + 1) % items.length] || items[0]).focus();
  else if (key === "ArrowUp" || key === "ArrowLeft") (items[(at - 1 + items.length) % items.length] || items[0]).focus();
  else if (key === "Enter") (items[at] || items[0]).click();
  else if (key === "Escape") {
    ctx.S.choices = null;
    ctx.render();
    focusCursor(ctx);
  } else {
    const numbered = items.find((item) => item.dataset.key === key);
    if (numbered) numbered.click();
    else handled = false;
  }
  if (handled) event.preventDefault();
  return handled;
}

/** Move the cursor in the hand (arrows, Home, End) or pick the card under it (space). True when handled. */
function handKey(ctx, event) {
  const { S } = ctx;
  const key = event.key;
  if (!["ArrowLeft", "ArrowRight", "Home", "End", " ", "Spacebar"].includes(key)) return false;
  if (!S.hand.length) return true;
  event.preventDefault();
  S.focusHand = true;
  if (key === "ArrowLeft" || key === "ArrowRight") S.cursor = (S.cursor + (key === "ArrowLeft" ? -1 : 1) + S.hand.length) % S.hand.length;
  else if (key === "Home" || key === "End") S.cursor = key === "Home" ? 0 : S.hand.length - 1;
  else {
    toggleCard(ctx, S.cursor);
    return true;
  }
  ctx.render();
  return true;
}

export function onKey(ctx, event) {
  const { S, el } = ctx;
  if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return;
  const target = event.target;
  if (target && (target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName))) return;
  if (el.side.classList.contains("open") && event.key === "Escape") {
    event.preventDefault();
    closeSide(ctx);
    return;
  }
  if (document.querySelector("dialog[open]") || el.side.classList.contains("open")) return; // a dialog or the sheet has the keys
  const key = event.key;
  // Space and Enter keep their own meaning on a focused button or link (other than a card of the hand)
  const onControl = target && target.closest && target.closest("button, a, summary, [role=button]") && !target.closest("[data-testid=hand-card]");
  if (onControl && (key === " " || key === "Spacebar" || key === "Enter") && !(S.choices && key === "Enter")) return;
  if (S.choices && choiceKey(ctx, event)) return;
  if (handKey(ctx, event)) return;
  if (key === "Escape") {
    event.preventDefault();
    M.clearSelection(S);
    ctx.render();
    return;
  }
  if (key === "?") {
    event.preventDefault();
    openHelp(ctx);
    return;
  }
  if (key.toLowerCase() === "h" && M.myTurn(S)) {
    event.preventDefault();
    askHint(ctx);
    return;
  }
  const spec = BUTTONS.find((b) => b.key === key.toLowerCase());
  if (spec) {
    event.preventDefault();
    onButton(ctx, spec.id);
  }
}
