// The story and the score: the log of the deal, the score sheet with the
// match's target, the rules changed from the preset, the deal's result with
// its breakdown (and the next deal), and the match's end.

import { api, storeSeat, storedSeat } from "../api.js";
import { clear, h, put } from "../dom.js";
import { t } from "../i18n.js";
import { rulesLines, rulesPanel } from "../lobby.js";
import { endedWords, eventWords, tnode } from "../words.js";
import { scoreChart } from "./chart.js";
import * as M from "./model.js";

const PARTS = ["melds", "bonuses", "hands", "going_out", "reserve", "cut", "total"];

/** "+310", "-45", "0". */
export function signed(value) {
  return value > 0 ? `+${value}` : String(value);
}

function breakdownTable(S, result) {
  const order = M.teamOrder(S);
  const keys = PARTS.filter((k) => result.breakdown[0] && k in result.breakdown[0]);
  return h(
    "table",
    { class: "breakdown", id: "breakdown" },
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, ""), order.map((team) => h("th", { scope: "col", class: `team-text team-${team}` }, M.teamShort(S, team))))),
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
            return h("td", { class: value < 0 ? "neg" : "" }, signed(value));
          }),
        ),
      ),
    ),
  );
}

/** Who won the deal (or, with `match`, the match), in words from the reader's side. */
export function winnerText(S, winners, match) {
  const list = winners || [];
  if (list.length > 1) return t(match ? "result.match_tied" : "result.tied", { teams: list.map((team) => M.teamShort(S, team)).join(" & ") });
  const team = list[0];
  if (team === undefined) return "";
  if (M.isSeated(S) && M.teamOf(S, S.me) === team) return t(match ? "result.match_we_win" : "result.we_win");
  return t(match ? "result.match_they_win" : "result.they_win", { team: M.teamShort(S, team) });
}

/** The teams with the highest total (when the server's `winners` is missing). */
export function winnersFromTotals(totals) {
  const best = Math.max(...totals);
  return totals.map((v, i) => (v === best ? i : -1)).filter((i) => i >= 0);
}

function matchWinners(S) {
  const info = M.tableInfo(S);
  return S.state.winners || winnersFromTotals((info && info.totals) || []);
}

function matchOverLinks(id) {
  return [
    h("a", { class: "button", id: "replay-link", href: `/t/${encodeURIComponent(id)}?replay`, "data-link": true }, t("result.replay")),
    h("a", { class: "button", id: "record", href: api.recordUrl(id), download: `biriba-${id}.json` }, t("result.record")),
    h("a", { class: "button", id: "result-lobby", href: "/", "data-link": true }, t("nav.lobby")),
  ];
}

/** Ask for the rematch ("same": keep the own seat there; "new": choose a seat there). */
function askRematch(ctx, seats) {
  const { S } = ctx;
  if (S.rematchAsked) return;
  if (!ctx.send({ type: "rematch", seats })) {
    S.rematchNote = t("conn.not_sent_rematch");
  } else {
    S.rematchAsked = seats;
    S.rematchNote = null;
  }
  ctx.render();
}

/** The server's answer to a rematch request: remember the seat there, and go to the new table. */
export function onRematch(ctx, answer) {
  const { S } = ctx;
  const held = storedSeat(ctx.id);
  const name = (held && held.name) || (M.seatInfo(S, S.me) || {}).name || "";
  const plan = M.rematchPlan(answer, name);
  S.rematchAsked = null;
  if (plan.seat) storeSeat(plan.id, plan.seat);
  ctx.page.navigate(plan.path);
}

/** The rematch offer at the match's end: ask for one, or join (or watch) the one someone asked for. */
function rematchRow(ctx) {
  const { S } = ctx;
  const info = M.tableInfo(S);
  const asked = info && info.rematch;
  const busy = !!S.rematchAsked || !S.joined;
  const row = h("div", { class: "row-actions rematch", id: "rematch" });
  if (M.isSeated(S)) {
    if (asked) {
      row.append(
        h("p", { class: "rematch-news" }, t("rematch.asked")),
        h("button", { type: "button", class: "primary big", id: "rematch-join", disabled: busy, onclick: () => askRematch(ctx, "same") }, t("rematch.join")),
      );
    } else {
      row.append(
        h("button", { type: "button", class: "primary big", id: "rematch-same", disabled: busy, onclick: () => askRematch(ctx, "same") }, t("rematch.same")),
        h("button", { type: "button", class: "big", id: "rematch-new", disabled: busy, onclick: () => askRematch(ctx, "new") }, t("rematch.new")),
      );
    }
  } else if (asked) {
    row.append(
      h("p", { class: "rematch-news" }, t("rematch.asked")),
      h("a", { class: "button primary big", id: "rematch-watch", href: `/t/${encodeURIComponent(asked)}?watch`, "data-link": true }, t("rematch.watch")),
    );
  } else {
    row.append(h("p", { class: "muted", id: "rematch-wait" }, t("rematch.watch_soon")));
  }
  if (S.rematchAsked) row.append(h("span", { class: "muted", role: "status" }, t("rematch.making")));
  if (S.rematchNote) row.append(h("span", { class: "error-line", role: "alert" }, S.rematchNote));
  return row;
}

function nextDealRow(ctx, row) {
  const { S } = ctx;
  const info = M.tableInfo(S);
  const pause = info && info.settings && typeof info.settings.deal_pause === "number" ? info.settings.deal_pause : 15;
  const left = () => (S.resultSeenAt ? Math.max(0, Math.round(pause - (Date.now() - S.resultSeenAt) / 1000)) : 0);
  const button = h(
    "button",
    {
      type: "button",
      id: "next-deal",
      class: "primary big",
      disabled: M.nextDisabled(S),
      onclick: () => {
        ctx.send({ type: "next" });
        button.disabled = true;
      },
    },
    t("result.next"),
  );
  const countdown = h("span", { class: "muted countdown" }, t("result.auto", { n: S.resultSeenAt ? left() : pause }));
  row.append(button, countdown);
  clearInterval(ctx.timers.countdown);
  ctx.timers.countdown = setInterval(() => {
    countdown.textContent = t("result.auto", { n: left() });
    if (!document.body.contains(countdown)) clearInterval(ctx.timers.countdown);
  }, 1000);
}

function renderResult(ctx) {
  const { S } = ctx;
  const result = S.state.result;
  const info = M.tableInfo(S);
  const over = info && info.status === "over";
  const panel = h("section", { class: "result-panel", id: "result", "data-testid": "result", "aria-labelledby": "result-title" });
  if (over) panel.append(h("p", { class: "winner big", id: "match-winner" }, winnerText(S, matchWinners(S), true)));
  if (over) put(panel, rematchRow(ctx), h("div", { class: "row-actions" }, matchOverLinks(ctx.id)));
  const deal = info ? info.deals : null;
  const how = endedWords(result.ended_by, M.closerOf(S, deal), S.me, (seat) => M.nameOf(S, seat));
  panel.append(
    h("h2", { id: "result-title" }, t("result.title", { n: deal ?? "", how })),
    h("p", { class: "winner" }, winnerText(S, result.winners, false)),
    breakdownTable(S, result),
  );
  if (info && info.totals) {
    const totals = M.teamOrder(S).map((team, i) => [i ? " · " : "", h("strong", { class: `team-text team-${team}` }, `${M.teamShort(S, team)} ${info.totals[team]}`)]);
    panel.append(h("p", { class: "totals" }, t("result.totals"), " ", totals));
  }
  const row = h("div", { class: "row-actions" });
  if (over) {
    /* the links are above */
  } else if (M.isSeated(S)) nextDealRow(ctx, row);
  else row.append(h("span", { class: "muted" }, t("result.next_soon")));
  const hide = () => {
    S.showResult = false;
    ctx.render();
  };
  row.append(h("button", { type: "button", class: "small", id: "hide-result", onclick: hide }, t("result.hide")));
  panel.append(row);
  return panel;
}

/**
 * The deal's result (or the match's end) as a dialog over the table, in view at
 * every size, until the reader turns to the table ("See the table", Esc); the
 * turn line then offers it again.
 */
export function renderResultDialog(ctx) {
  const { S, el } = ctx;
  const dialog = el.resultDialog;
  const info = M.tableInfo(S);
  let panel = null;
  if (S.state && S.showResult) {
    if (S.state.result) panel = renderResult(ctx);
    else if (info && info.status === "over") panel = renderMatchOver(ctx);
  }
  if (!panel) {
    if (dialog.open) dialog.close();
    clear(dialog);
    return;
  }
  const focused = dialog.contains(document.activeElement) && document.activeElement.id ? document.activeElement.id : null;
  clear(dialog);
  dialog.append(panel);
  if (!dialog.open) {
    if (!dialog.dataset.wired) {
      dialog.dataset.wired = "1";
      dialog.addEventListener("cancel", (event) => {
        event.preventDefault(); // Esc: as "See the table", the render closes it
        S.showResult = false;
        ctx.render();
      });
    }
    dialog.showModal();
  }
  const again = focused ? dialog.querySelector(`#${CSS.escape(focused)}`) : null;
  if (again) again.focus();
}

function renderMatchOver(ctx) {
  const hide = () => {
    ctx.S.showResult = false;
    ctx.render();
  };
  return h(
    "section",
    { class: "result-panel", id: "match-over", "data-testid": "result", "aria-labelledby": "result-title" },
    h("h2", { id: "result-title" }, t("turn.match_over")),
    h("p", { class: "winner big" }, winnerText(ctx.S, matchWinners(ctx.S), true)),
    rematchRow(ctx),
    h("div", { class: "row-actions" }, matchOverLinks(ctx.id), h("button", { type: "button", class: "small", id: "hide-result", onclick: hide }, t("result.hide"))),
  );
}

function renderLog(ctx) {
  const { S } = ctx;
  const logList = ctx.el.logList;
  clear(logList);
  const who = (seat) => M.who(S, seat);
  let closer = null;
  const notes = (after) => S.notes.filter((note) => note.after === after).map((note) => h("li", { class: "log-note" }, tnode(note.key, note.params)));
  logList.append(...notes(0));
  for (const [index, event] of S.events.entries()) {
    if (event.kind === "deal") closer = null;
    if (event.kind === "action" && event.ended === "closure") closer = event.seat;
    const lines = eventWords(event, S.me, (seat) => (event.kind === "result" ? M.nameOf(S, seat) : who(seat)), closer);
    if (lines.length) {
      const team = event.seat !== undefined ? ` team-${M.teamOf(S, event.seat)}` : "";
      const item = h("li", { class: `log-${event.kind}${event.seat === S.me ? " mine" : ""}${team}` });
      lines.forEach((line, i) => {
        if (i) item.append(" ");
        item.append(tnode(line.key, line.params));
      });
      logList.append(item);
    }
    logList.append(...notes(index + 1));
  }
  if (!logList.children.length) logList.append(h("li", { class: "muted" }, t("log.empty")));
  requestAnimationFrame(() => {
    logList.scrollTop = logList.scrollHeight;
  });
}

function sheetRow(row, order) {
  return h(
    "tr",
    {},
    h("th", { scope: "row" }, String(row.deal)),
    order.map((team) => {
      const score = row.scores[team];
      return h("td", {}, h("span", { class: score < 0 ? "neg" : "pos" }, signed(score)), h("span", { class: "running" }, ` ${row.totals[team]}`));
    }),
  );
}

/** The chart's key: each team's colour and name (the chart itself says its totals to a screen reader). */
function chartLegend(S, order) {
  return h(
    "figcaption",
    { class: "chart-legend", "aria-hidden": "true" },
    order.map((team) => h("span", { class: `legend-item team-text team-${team}` }, h("span", { class: "legend-swatch" }), M.teamShort(S, team))),
  );
}

/** The side: the log, the score sheet and its target and chart, the rules in words. */
export function renderSide(ctx) {
  const { S } = ctx;
  const { sheetBox, rulesBox } = ctx.el;
  renderLog(ctx);
  clear(sheetBox);
  const sheet = (S.state && S.state.sheet) || [];
  const order = M.teamOrder(S);
  const head = h("tr", {}, h("th", { scope: "col" }, t("sheet.deal")), order.map((team) => h("th", { scope: "col", class: `team-text team-${team}` }, M.teamShort(S, team))));
  const empty = h("tr", {}, h("td", { colspan: order.length + 1, class: "muted empty" }, t("sheet.empty")));
  sheetBox.append(
    h(
      "table",
      { id: "sheet", class: "sheet" },
      h("caption", { class: "visually-hidden" }, t("sheet.title")),
      h("thead", {}, head),
      h("tbody", {}, sheet.length ? sheet.map((row) => sheetRow(row, order)) : empty),
    ),
  );
  const rules = M.options(S);
  if (sheet.length) {
    const totals = M.teams(S).map((_, team) => sheet.map((row) => row.totals[team]));
    const chart = scoreChart(totals, { target: rules.target || null, names: (team) => M.teamShort(S, team), order, id: "score-chart" });
    sheetBox.append(h("figure", { class: "chart-box" }, chart, chartLegend(S, order)));
  }
  if (rules.target) sheetBox.append(h("p", { class: "help" }, t(rules.target_rule === "reach" ? "sheet.target_reach" : "sheet.target_exceed", { n: rules.target })));
  // the rules panel is made again only when its words change: a state message neither folds it nor takes its focus
  const info = M.tableInfo(S);
  const said = JSON.stringify(info ? rulesLines(info.rules) : []);
  if (rulesBox.dataset.said !== said) {
    const wasOpen = Boolean(rulesBox.querySelector("details[open]"));
    clear(rulesBox);
    put(rulesBox, info ? rulesPanel(info.rules, { class: "side-panel", id: "rules-words", open: wasOpen }) : null);
    rulesBox.dataset.said = said;
  }
}
