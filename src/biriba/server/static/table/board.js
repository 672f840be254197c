// The board: each team's panel (its name, points on the table, biribas,
// reserve, the opening minimum still due) and its melds, each with its state
// in words, its bonus and what it lacks, as the engine computed them (the
// state message's `board`).  A meld the picked cards may join is a button.

import { miniCard, tokenName } from "../cards.js";
import { clear, h } from "../dom.js";
import { t } from "../i18n.js";
import { teamLetter } from "../lobby.js";
import { meldWords } from "../words.js";
import { doAdd } from "./input.js";
import * as M from "./model.js";
import { renderMatchOver, renderResult } from "./sheet.js";

function meldItem(ctx, team, number, tokens, info, target) {
  const { S } = ctx;
  const stateText = meldWords(info);
  const toGo = info.to_biriba;
  const flash = S.lastFlash && S.lastFlash.has(`${team}:${number}`);
  const attrs = {
    class: `meld ${info.kind}${info.biriba ? (info.clean ? " biriba clean" : " biriba dirty") : ""}${target ? " target" : ""}${flash ? " flash" : ""}`,
    "data-testid": "meld",
    "data-team": team,
    "data-index": number,
    "aria-label": t("meld.aria", { n: number, state: stateText, cards: tokens.map(tokenName).join(", ") }),
  };
  attrs.role = "img"; // a picture of the meld, named in words; a meld you may add to is a button instead
  if (target) {
    attrs.role = "button";
    attrs.tabindex = 0;
    attrs.onclick = () => doAdd(ctx, number);
    attrs.onkeydown = (e) => {
      if (e.key === "Enter" || e.key === " ") {
        e.preventDefault();
        e.stopPropagation();
        doAdd(ctx, number);
      }
    };
  }
  return h(
    "div",
    attrs,
    h("span", { class: "meld-num", "aria-hidden": "true" }, String(number)),
    h("span", { class: `meld-cards${tokens.length > 8 ? " long" : ""}`, "aria-hidden": "true" }, tokens.map((token) => miniCard(token, M.wilds(S)))),
    h(
      "span",
      { class: "meld-state", "aria-hidden": "true" },
      info.biriba ? h("span", { class: "biriba-mark" }, info.clean ? "★ " : "☆ ") : null,
      stateText,
      info.bonus ? h("span", { class: "meld-bonus" }, ` +${info.bonus}`) : null,
      toGo > 0 && toGo <= 2 ? h("span", { class: "meld-togo" }, " · " + t("meld.to_go", { n: toGo })) : null,
      target ? h("span", { class: "meld-add" }, " · " + t("meld.tap_to_add")) : null,
    ),
  );
}

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
      h("h2", {}, h("span", { class: "team-letter", "aria-hidden": "true" }, teamLetter(team)), " ", M.teamLabel(S, team)),
      h(
        "p",
        { class: "team-facts" },
        h("span", { class: "team-points", "data-testid": "team-points" }, t("team.on_table", { n: board.points })),
        biribas ? h("span", {}, t("team.biribas", { n: biribas })) : null,
        h("span", { class: reserve ? "reserve taken" : "reserve" }, reserveText),
      ),
      opening,
    ),
    list,
  );
}

/** The board: the deal's result or the match's end when there is one, then the teams' panels, the own team's first. */
export function renderBoard(ctx) {
  const { S } = ctx;
  const board = ctx.el.board;
  clear(board);
  if (!S.state) {
    board.append(h("p", { class: "muted center" }, t("conn.connecting")));
    return;
  }
  const info = M.tableInfo(S);
  if (S.state.result && S.showResult) board.append(renderResult(ctx));
  else if (info && info.status === "over") board.append(renderMatchOver(ctx));
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
