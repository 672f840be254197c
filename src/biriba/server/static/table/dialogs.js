// The table's dialogs: the whole discard pile (and taking it from there),
// the help with the keys, and the own seat's menu (the bot plays for me, leave).

import { cardFace, cardName, isWildKind } from "../cards.js";
import { clear, h, put } from "../dom.js";
import { t } from "../i18n.js";
import { icon } from "../icons.js";
import { sendAction } from "./connection.js";
import { has, seatInfo, tableInfo, viewData, wilds } from "./model.js";
import { setSound, soundOn } from "./sound.js";

export function openPile(ctx) {
  const { S } = ctx;
  const dialog = ctx.el.pileDialog;
  const v = viewData(S);
  const pile = v ? v.discard || [] : [];
  const wild = wilds(S);
  clear(dialog);
  const close = h("button", { type: "button", class: "small", id: "close-pile", onclick: () => dialog.close() }, t("dialog.close"));
  const takeButton =
    has(S, "take") && S.pending === null
      ? h(
          "button",
          {
            type: "button",
            class: "primary",
            id: "take-from-dialog",
            onclick: () => {
              dialog.close();
              sendAction(ctx, "take");
            },
          },
          t("pile.take", { n: pile.length }),
        )
      : null;
  put(
    dialog,
    h("h2", { id: "pile-dialog-title" }, t("pile.whole", { n: pile.length })),
    pile.length
      ? h(
          "ol",
          { class: "pile-list", id: "pile-list", "aria-label": t("pile.order") },
          pile.map((card, i) =>
            h("li", {}, cardFace(card, { wild: isWildKind(card, wild) && card !== "JK", label: cardName(card) + (i === pile.length - 1 ? `, ${t("pile.top")}` : "") })),
          ),
        )
      : h("p", {}, t("pile.empty")),
    pile.length ? h("p", { class: "help" }, t("pile.order")) : null,
    h("div", { class: "row-actions" }, takeButton, close),
  );
  dialog.showModal();
}

export function openHelp(ctx) {
  const dialog = ctx.el.helpDialog;
  clear(dialog);
  const keys = [
    ["d", t("action.draw")], ["t", t("action.take")], ["p", t("action.pass")], ["m", t("action.meld")],
    ["a", t("help.key_add")], ["x", t("action.discard")], ["h", t("hint.button")], ["← →", t("help.key_move")], [t("help.space"), t("help.key_select")],
    ["Enter", t("help.key_enter")], ["Esc", t("help.key_esc")], ["?", t("help.open")],
  ];
  dialog.append(
    h(
      "div",
      { class: "dialog-head" },
      h("h2", { id: "help-title" }, t("help.title")),
      h("button", { type: "button", class: "small", id: "close-help", "aria-label": t("dialog.close"), onclick: () => dialog.close() }, "✕"),
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
        checked: soundOn(),
        onchange: (e) => {
          setSound(e.target.checked);
          ctx.render(); // the bell among the tools says the same
        },
      }),
      " ",
      t("help.sound"),
    ),
    h("div", { class: "row-actions" }, h("button", { type: "button", class: "primary", onclick: () => dialog.close() }, t("dialog.close"))),
  );
  dialog.showModal();
}

/** The own seat's menu: let the bot play for me or take the seat back, and leave the seat (after a question). */
export function openSeatMenu(ctx, confirming = false) {
  const { S } = ctx;
  const dialog = ctx.el.seatDialog;
  const seat = seatInfo(S, S.me);
  const info = tableInfo(S);
  if (!seat || !info) return;
  clear(dialog);
  const close = () => dialog.close();
  const handOver = (bot) => {
    ctx.send({ type: "hand_over", bot });
    close();
  };
  const leave = () => {
    S.leaving = true;
    ctx.send({ type: "leave" });
    close();
  };
  const over = info.status === "over";
  const body = confirming
    ? [
        h("p", { id: "seat-dialog-text" }, t("seat.leave_question")),
        h(
          "div",
          { class: "row-actions" },
          h("button", { type: "button", class: "danger", id: "confirm-leave", onclick: leave }, t("seat.leave_yes")),
          h("button", { type: "button", id: "cancel-leave", onclick: () => openSeatMenu(ctx, false) }, t("seat.leave_no")),
        ),
      ]
    : [
        h("p", { class: "help", id: "seat-dialog-text" }, seat.handed ? t("seat.handed_now") : t("seat.menu_help")),
        h(
          "div",
          { class: "menu-list" },
          over
            ? null
            : seat.handed
              ? h("button", { type: "button", class: "primary", id: "take-back", onclick: () => handOver(false) }, icon("hand"), t("seat.take_back"))
              : h("button", { type: "button", id: "hand-over", onclick: () => handOver(true) }, icon("bot"), t("seat.hand_over")),
          over ? null : h("button", { type: "button", class: "danger-outline", id: "leave-seat", onclick: () => openSeatMenu(ctx, true) }, icon("exit"), t("seat.leave")),
          h("button", { type: "button", id: "close-seat-menu", onclick: close }, t("dialog.close")),
        ),
      ];
  put(
    dialog,
    h(
      "div",
      { class: "dialog-head" },
      h("h2", { id: "seat-dialog-title" }, confirming ? t("seat.leave_title") : t("seat.menu_title", { who: seat.name || "" })),
      h("button", { type: "button", class: "small", "aria-label": t("dialog.close"), onclick: close }, "✕"),
    ),
    body,
  );
  if (!dialog.open) dialog.showModal();
  const first = dialog.querySelector(confirming ? "#cancel-leave" : ".menu-list button");
  if (first) first.focus();
}
