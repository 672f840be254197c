// The board: each team's panel (its name, points on the table, biribas,
// reserve, the opening minimum still due) and its melds, each a short fan with
// its number, kind and count, as the engine computed them (the state message's
// `board`), a biriba marked clean or dirty.  A meld the picked cards may join
// adds them when tapped; any other meld opens whole in a dialog.  The result
// of a deal and the match's end are a dialog of their own (sheet.js).

import { cardFace, cardName, cardText, isWildKind, placed, tokenName } from "../cards.js";
import { clear, h, put } from "../dom.js";
import { t } from "../i18n.js";
import { teamLetter } from "../lobby.js";
import { meldFacts, meldTile } from "../melds.js";
import { doAdd } from "./input.js";
import * as M from "./model.js";

/** A meld of the board: a tap adds the picked cards to it when they may join it, or opens it whole. */
function meldItem(ctx, team, number, tokens, info, target) {
  const { S } = ctx;
  const run = () => (target ? doAdd(ctx, number) : openMeld(ctx, team, number));
  const tile = meldTile(team, number, tokens, info, M.wilds(S), {
    target,
    flash: S.lastFlash && S.lastFlash.has(`${team}:${number}`),
    attrs: {
      role: "button",
      tabindex: 0,
      "aria-haspopup": target ? null : "dialog",
      onclick: run,
      onkeydown: (e) => {
        if (e.key === "Enter" || e.key === " ") {
          e.preventDefault();
          e.stopPropagation();
          run();
        }
      },
    },
  });
  if (target) tile.setAttribute("aria-label", `${tile.getAttribute("aria-label")}. ${t("meld.tap_to_add")}`);
  return tile;
}

/** One meld whole, its cards large and its facts in words (a tap on a meld that takes no card now). */
export function openMeld(ctx, team, number) {
  const { S } = ctx;
  const dialog = ctx.el.meldDialog;
  const tokens = M.teamMelds(S, team)[number - 1];
  const info = M.teamBoard(S, team).melds[number - 1];
  if (!tokens || !info) return;
  const wild = M.wilds(S);
  clear(dialog);
  const close = () => dialog.close();
  put(
    dialog,
    h(
      "div",
      { class: "dialog-head" },
      h("h2", { id: "meld-dialog-title" }, t("meld.whole", { n: number, team: M.teamShort(S, team) })),
      h("button", { type: "button", class: "small", "aria-label": t("dialog.close"), onclick: close }, "✕"),
    ),
    h("p", { class: "meld-whole-facts" }, meldFacts(info, false)),
    h(
      "ol",
      { class: "pile-list meld-whole", id: "meld-whole" },
      tokens.map((token) => {
        const { card, slot } = placed(token);
        const face = cardFace(card, { wild: isWildKind(card, wild) && card !== "JK", label: slot ? tokenName(token) : cardName(card) });
        return h("li", {}, face, slot ? h("span", { class: "slot-note", "aria-hidden": "true" }, "= ", cardText(slot)) : null);
      }),
    ),
    h("div", { class: "row-actions" }, h("button", { type: "button", class: "primary", id: "close-meld", onclick: close }, t("dialog.close"))),
  );
  dialog.showModal();
}

/** Words in full for wide screens and readers, and their short form for a phone's eye (screens.css picks). */
const long = (words) => h("span", { class: "words-long" }, words);
const short = (words) => h("span", { class: "words-short", "aria-hidden": "true" }, words);

function teamPanel(ctx, team, addTargets, myTeam) {
  const { S } = ctx;
  const v = M.viewData(S);
  const melds = M.teamMelds(S, team);
  const board = M.teamBoard(S, team);
  const reserve = M.reserveOf(S, team);
  let reserveText;
  if (!reserve) reserveText = t("reserve.not_taken");
  else reserveText = reserve.active ? t("reserve.taken_by", { who: M.who(S, reserve.seat) }) : t("reserve.next_turn", { who: M.who(S, reserve.seat) });
  const biribas = board.melds.filter((m) => m.biriba).length;
  const opening = board.opening_minimum > 0
    ? h("p", { class: "opening" }, t("opening.needs", { n: board.opening_minimum }), team === myTeam && v.opening_value ? " " + t("opening.so_far", { n: v.opening_value }) : "")
    : null;
  const list = h("div", { class: "meld-list" }); // not a list: a meld may be a button, which no list item may be
  melds.forEach((tokens, i) => {
    const info = board.melds[i] || { kind: "run", size: tokens.length, clean: true, biriba: false, bonus: 0, to_biriba: 0 };
    list.append(meldItem(ctx, team, i + 1, tokens, info, team === myTeam && addTargets.has(i + 1)));
  });
  if (!melds.length) list.append(h("p", { class: "no-melds muted" }, t("board.no_melds")));
  return h(
    "section",
    { class: `team-panel team-${team}${team === myTeam ? " mine" : ""}`, "data-testid": "team", "data-team": team, "aria-label": M.teamLabel(S, team) },
    h(
      "header",
      { class: "team-head" },
      h("h2", {}, h("span", { class: "team-letter", "aria-hidden": "true" }, teamLetter(team)), " ", h("span", { class: "team-name" }, M.teamLabel(S, team))),
      h(
        "p",
        { class: "team-facts" },
        h("span", { class: "team-points", "data-testid": "team-points" }, long(t("team.on_table", { n: board.points })), short(t("team.points_short", { n: board.points }))),
        biribas ? h("span", { class: "team-biribas" }, long(t("team.biribas", { n: biribas })), short(`★ ${biribas}`)) : null,
        h("span", { class: reserve ? "reserve taken" : "reserve" }, long(reserveText), short(t(reserve ? "reserve.short_taken" : "reserve.short_none"))),
      ),
      opening,
    ),
    list,
  );
}

/** The board: the teams' panels, the own team's first. */
export function renderBoard(ctx) {
  const { S } = ctx;
  const board = ctx.el.board;
  clear(board);
  if (!S.state) {
    board.append(h("p", { class: "muted center" }, t("conn.connecting")));
    return;
  }
  if (!M.viewData(S)) {
    board.append(h("div", { class: "waiting" }, h("p", {}, t("board.waiting"))));
    return;
  }
  const teamsBox = h("div", { class: `teams teams-${M.teams(S).length}` });
  const addTargets = M.myTurn(S) ? new Set(M.optionsFor(S, "add").map((p) => p.meld)) : new Set();
  const myTeam = M.isSeated(S) ? M.teamOf(S, S.me) : null;
  for (const team of M.teamOrder(S)) teamsBox.append(teamPanel(ctx, team, addTargets, myTeam));
  board.append(teamsBox);
}
