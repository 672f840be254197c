// The hand area: the refusal line, the choices, the own hand (overlapped to
// fit the width, in rows when it must), the action buttons enabled from
// `legal`, the sort switch, and the prompt that says what to do now.

import { cardFace, cardName, cardsInline, handGroup, isWildKind } from "../cards.js";
import { clear, h } from "../dom.js";
import { t } from "../i18n.js";
import { icon } from "../icons.js";
import { actionWords, tnode } from "../words.js";
import { askHint, BUTTONS, focusCursor, onButton, toggleCard, toggleSort } from "./input.js";
import * as M from "./model.js";

/** The server's pace for hints (docs/protocol.md): one every 5 seconds. */
const HINT_EVERY_MS = 5000;

/** The action buttons (in el.buttonRow, kept in el.buttons by id), the sort switch and the hint button. */
export function makeButtons(ctx) {
  const { el } = ctx;
  el.buttons = {};
  for (const spec of BUTTONS) {
    const button = h(
      "button",
      { type: "button", id: spec.id, class: `action action-${spec.id}`, disabled: true, "aria-keyshortcuts": spec.key, onclick: () => onButton(ctx, spec.id) },
      h("span", { class: "action-label" }, t(`action.${spec.id}`)),
      h("kbd", { "aria-hidden": "true" }, spec.key),
    );
    el.buttons[spec.id] = button;
    el.buttonRow.append(button);
  }
  el.sortLabel = h("span", { class: "tool-label" });
  el.sortButton = h("button", { type: "button", id: "sort", class: "sort-button small", onclick: () => toggleSort(ctx) }, icon("sort"), el.sortLabel);
  el.hintButton = h(
    "button",
    { type: "button", id: "hint", class: "sort-button hint-button small", "aria-keyshortcuts": "h", onclick: () => askHint(ctx) },
    icon("bulb"),
    h("span", { class: "tool-label" }, t("hint.button")),
    h("kbd", { "aria-hidden": "true" }, "h"),
  );
}

function renderError(ctx) {
  const { S } = ctx;
  const line = ctx.el.errorLine;
  line.hidden = !S.error;
  clear(line);
  if (!S.error) return;
  const close = () => {
    S.error = null;
    ctx.render();
  };
  line.append(
    h("span", { class: "error-label" }, t("error.not_allowed")),
    " ",
    h("span", { class: "error-text" }, S.error.text),
    h("button", { type: "button", class: "link small", "aria-label": t("dialog.close"), onclick: close }, "✕"),
  );
}

function renderChoices(ctx) {
  const { S } = ctx;
  const box = ctx.el.choicesBox;
  clear(box);
  box.hidden = !S.choices;
  if (!S.choices) return;
  box.append(h("p", { class: "choices-title", id: "choices-title" }, S.choices.title));
  box.setAttribute("aria-labelledby", "choices-title");
  const list = h("div", { class: "choice-list" });
  S.choices.items.forEach((item, i) => {
    const key = item.key || String(i + 1);
    list.append(
      h(
        "button",
        { type: "button", class: "choice", "data-testid": "choice", "data-action": item.action || "", "data-key": key, onclick: () => item.run() },
        h("span", { class: "choice-key", "aria-hidden": "true" }, key),
        h("span", { class: "choice-label" }, item.label),
        item.detail ? h("span", { class: "choice-detail" }, cardsInline(item.detail)) : null,
      ),
    );
  });
  const cancel = () => {
    S.choices = null;
    ctx.render();
    focusCursor(ctx);
  };
  list.append(h("button", { type: "button", class: "choice cancel", id: "cancel-choice", onclick: cancel }, t("choice.cancel")));
  box.append(list);
}

/** Which buttons the legal actions allow with the picked cards. */
function enabledActions(S) {
  return {
    draw: M.has(S, "draw"),
    take: M.has(S, "take"),
    pass: M.has(S, "pass"),
    meld: M.optionsFor(S, "meld").length > 0,
    add: M.optionsFor(S, "add").length > 0,
    discard: M.optionsFor(S, "discard").length > 0,
  };
}

function renderButtons(ctx, enabled) {
  const { S, el } = ctx;
  const v = M.viewData(S);
  const info = M.tableInfo(S);
  el.buttonRow.hidden = !M.isSeated(S) || !v || (info && info.status === "over");
  const idle = S.pending !== null || !S.joined;
  const parts = M.parts(S);
  const hinted = S.hint && S.hint.action ? S.hint.action.split(" ")[0] : null;
  for (const spec of BUTTONS) {
    const button = el.buttons[spec.id];
    button.disabled = idle || !enabled[spec.id];
    button.classList.toggle("unused", !M.has(S, spec.id) && !parts.some((p) => p.kind === spec.id));
    button.classList.toggle("hinted", hinted === spec.id && !button.disabled);
  }
  const pileSize = v && v.discard ? v.discard.length : 0;
  const take = el.buttons.take;
  const takeCount = take.querySelector(".count") || h("span", { class: "count", "aria-hidden": "true" });
  const showCount = pileSize > 0 && !take.disabled; // no badge on a button that cannot be used
  takeCount.textContent = showCount ? String(pileSize) : "";
  takeCount.hidden = !showCount;
  take.append(takeCount);
  take.setAttribute("aria-label", showCount ? t("action.take_n", { n: pileSize }) : t("action.take"));
  el.sortLabel.textContent = S.sort === "suit" ? t("sort.by_rank") : t("sort.by_suit");
  el.sortButton.hidden = !M.isSeated(S) || !S.hand.length;
  const cooling = S.hintAt && Date.now() - S.hintAt < HINT_EVERY_MS;
  el.hintButton.hidden = !M.myTurn(S);
  el.hintButton.disabled = idle || !!cooling || !!(S.hint && S.hint.pending);
}

/** The hint's line: "Hint: meld 3♥ 4♥ 5♥", or why none came. */
function renderHint(ctx) {
  const { S } = ctx;
  const line = ctx.el.hintLine;
  clear(line);
  const hint = S.hint;
  line.hidden = !hint || !M.myTurn(S);
  if (line.hidden) return;
  if (hint.pending) line.append(t("hint.thinking"));
  else if (hint.note) line.append(hint.note);
  else if (hint.action) {
    const words = actionWords(hint.action);
    line.append(icon("bulb"), " ", tnode("hint.text", { what: tnode(words.key, words.params) }));
  }
}

/** What to do now, in words (text, or for a spectator with a free seat, the link to sit down). */
function renderPrompt(ctx, enabled) {
  const { S } = ctx;
  const prompt = ctx.el.prompt;
  const v = M.viewData(S);
  const info = M.tableInfo(S);
  clear(prompt);
  if (!M.isSeated(S)) {
    const free = info ? info.seats.some((s) => s.kind === "person" && !s.name) : false;
    prompt.append(t("spectator.watching"), " ");
    if (free) prompt.append(h("a", { href: `/t/${encodeURIComponent(ctx.id)}`, "data-link": true, id: "sit-down" }, t("spectator.sit")));
    return;
  }
  const mine = M.seatInfo(S, S.me);
  if (mine && mine.handed && !(info && info.status === "over")) {
    prompt.append(
      t("prompt.handed"),
      " ",
      h("button", { type: "button", class: "link", id: "take-back-inline", onclick: () => ctx.send({ type: "hand_over", bot: false }) }, t("seat.take_back")),
    );
  } else if (S.pending !== null) prompt.append(t("prompt.sending"));
  else if (!M.myTurn(S)) {
    if (info && info.status === "over") prompt.append(t("prompt.match_over"));
    else if (S.state && S.state.result) prompt.append(t("prompt.deal_over"));
    else prompt.append(v ? t("prompt.wait") : "");
  } else {
    const chosen = M.selectedCards(S);
    if (v.phase === "draw") prompt.append(t("prompt.draw"));
    else if (!chosen.length) prompt.append(t("prompt.select"));
    else if (enabled.meld || enabled.add || enabled.discard) {
      const can = [];
      if (enabled.meld) can.push(t("action.meld"));
      if (enabled.add) can.push(t("prompt.add_to", { melds: [...new Set(M.optionsFor(S, "add").map((p) => p.meld))].join(", ") }));
      if (enabled.discard) can.push(t("action.discard"));
      prompt.append(t("prompt.can", { n: chosen.length, what: can.join(" · ") }));
    } else {
      const why = M.whyNow(S);
      if (why && !why.legal) prompt.append(h("span", { class: "why", id: "why" }, t("prompt.why", { reason: why.text })));
      else prompt.append(t("prompt.no_match", { n: chosen.length }));
    }
  }
}

export function renderHandArea(ctx) {
  renderError(ctx);
  renderChoices(ctx);
  renderHint(ctx);
  renderHand(ctx);
  ctx.el.handArea.hidden = false;
  const enabled = enabledActions(ctx.S);
  renderButtons(ctx, enabled);
  renderPrompt(ctx, enabled);
}

function handCard(ctx, card, i, isFresh) {
  const { S } = ctx;
  const wilds = M.wilds(S);
  const selected = S.selected.includes(i);
  const wild = isWildKind(card, wilds);
  let label = cardName(card);
  if (wild && card !== "JK") label += `, ${t("card.wild")}`;
  if (isFresh) label += `, ${t("card.new")}`;
  const group = handGroup(card, wilds);
  const previous = i ? handGroup(S.hand[i - 1], wilds) : group;
  const onfocus = () => {
    S.cursor = i;
    for (const other of ctx.el.handBox.querySelectorAll(".hand-card.cursor")) other.classList.remove("cursor");
    ctx.el.handBox.querySelector(`[data-index="${i}"]`)?.classList.add("cursor");
  };
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
      onclick: () => toggleCard(ctx, i),
      onfocus,
    },
    cardFace(card, { wild: wild && card !== "JK", label }),
    selected ? h("span", { class: "tick", "aria-hidden": "true" }, "✓") : null,
    isFresh ? h("span", { class: "new-tag", "aria-hidden": "true" }, t("card.new_tag")) : null,
  );
}

export function renderHand(ctx) {
  const { S } = ctx;
  const handBox = ctx.el.handBox;
  clear(handBox);
  if (!M.isSeated(S) || !M.viewData(S)) {
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
    const freshAt = freshLeft.indexOf(card);
    if (freshAt >= 0) freshLeft.splice(freshAt, 1);
    return handCard(ctx, card, i, freshAt >= 0);
  });
  layoutHand(ctx, cards);
}

function layoutHand(ctx, cards) {
  const { handBox } = ctx.el;
  const width = (handBox.clientWidth || ctx.view.clientWidth || 360) - 4;
  const cardW = parseFloat(getComputedStyle(ctx.view).getPropertyValue("--card-w")) || 56;
  const gap = 4;
  const groupGap = 8;
  // the part of a card that shows is what takes a tap: on a touch screen at least 24 px wide (WCAG 2.5.8)
  const coarse = window.matchMedia && window.matchMedia("(pointer: coarse)").matches;
  const minStep = coarse ? Math.max(24, cardW * 0.44) : Math.max(18, cardW * 0.36);
  const roomy = (cards.length > 1 ? (width - cardW) / (cards.length - 1) : cardW) >= cardW * 0.6;
  const starts = (row) => (roomy ? row.filter((card) => card.classList.contains("group-start")).length : 0);
  const stepFor = (count, groups) => (count > 1 ? (width - cardW - groups * groupGap) / (count - 1) : cardW);
  const rowsOf = (n, per) => Array.from({ length: n }, (_, r) => cards.slice(r * per, (r + 1) * per));
  let rows = 1;
  let perRow = cards.length;
  let step = stepFor(perRow, starts(cards));
  while (step < minStep && rows < 4) {
    rows += 1;
    perRow = Math.ceil(cards.length / rows);
    step = Math.min(...rowsOf(rows, perRow).map((row) => stepFor(row.length, starts(row))));
  }
  step = Math.min(step, cardW + gap);
  // each card's button is as wide as the part of it that shows, so that a tap (or a test's click
  // at the button's centre) lands on the card it means; the picture overflows under the next card
  handBox.style.setProperty("--slot", `${Math.min(step, cardW)}px`);
  handBox.style.setProperty("--overlap", `${Math.max(0, step - cardW)}px`);
  handBox.style.setProperty("--group-gap", roomy ? `${groupGap}px` : "0px");
  handBox.classList.toggle("rows", rows > 1);
  for (const row of rowsOf(rows, perRow)) {
    if (row[0]) row[0].classList.remove("group-start");
    handBox.append(h("div", { class: "hand-row" }, row));
  }
}
