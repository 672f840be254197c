// The replay of a finished match: any deal, step by step, every hand open
// (GET /api/tables/{id}/replay?deal=N&step=K), and the record to download.

import { analysisPanel } from "./analysis.js";
import { api } from "./api.js";
import { RANKS, SUITS, cardName, miniCard, sortHand } from "./cards.js";
import { $, clear, h, svg } from "./dom.js";
import { t } from "./i18n.js";
import { presetLabel, seatLabel, teamLetter } from "./lobby.js";
import { runningTotals, scoreChart } from "./table/chart.js";
import { meldTile } from "./melds.js";
import { actionParts, endedWords, eventWords, tnode } from "./words.js";

function cardOf(value) {
  if (typeof value === "string") return value;
  if (value === 52) return "JK";
  return RANKS[value >> 2] + SUITS[value & 3];
}

const ICONS = {
  first: "M6 5h2v14H6zM20 5v14L9 12z",
  prev: "M18 5v14L7 12z",
  next: "M6 5v14l11-7z",
  last: "M16 5h2v14h-2zM4 5v14l11-7z",
};

function stepIcon(name) {
  return svg("svg", { viewBox: "0 0 24 24", width: 22, height: 22, "aria-hidden": "true", focusable: "false" }, svg("path", { d: ICONS[name], fill: "currentColor" }));
}

export function showReplay(page, id, params) {
  const view = page.view();
  view.className = "replay-screen";
  page.title(t("replay.title"));
  const R = {
    info: null,
    wilds: ["JK"],
    deal: Math.max(1, Number(params.get("deal")) || 1),
    step: Math.max(0, Number(params.get("step")) || 0),
    total: null,
    cache: new Map(),
    stopped: false,
    loading: false,
  };
  const head = h("section", { class: "replay-head panel" }, h("p", { class: "muted" }, t("loading")));
  const bar = h("div", { class: "replay-bar" });
  const body = h("section", { class: "replay-body" });
  const chartBox = h("section", { class: "replay-chart panel", id: "replay-chart", hidden: true, "aria-labelledby": "replay-chart-title" });
  const analysis = analysisPanel(id, { names: (seat) => names(seat), go: (deal, step) => go(deal, step), changed: () => show() });
  view.append(head, bar, body, analysis.element, chartBox);

  async function position(deal, step) {
    const key = `${deal}/${step}`;
    if (!R.cache.has(key)) R.cache.set(key, api.replay(id, deal, step).catch((error) => { R.cache.delete(key); throw error; }));
    return R.cache.get(key);
  }

  function names(seat) {
    const s = R.info.seats[seat];
    if (!s) return seatLabel(seat);
    return s.kind === "bot" ? t("bot.name", { n: seat + 1 }) : s.name || seatLabel(seat);
  }
  function teamOfSeat(seat) {
    const s = R.info.seats[seat];
    return s ? s.team : seat;
  }
  function teamName(team) {
    return R.info.seats.filter((s) => s.team === team).map((s) => names(s.seat)).join(" & ");
  }

  async function start() {
    try {
      const info = await api.table(id);
      R.info = info;
      R.wilds = (info.rules && info.rules.wilds) || ["JK"];
    } catch (error) {
      clear(head);
      head.append(h("h1", {}, error.status === 404 ? t("error.no_table") : t("error.server", { message: error.message })), h("a", { href: "/", "data-link": true, class: "button" }, t("nav.lobby")));
      return;
    }
    if (R.info.status !== "over") {
      clear(head);
      head.append(
        h("h1", {}, t("replay.title")),
        h("p", {}, t("replay.not_over")),
        h("a", { href: `/t/${encodeURIComponent(id)}`, "data-link": true, class: "button primary" }, t("replay.back")),
      );
      return;
    }
    R.deal = Math.min(R.deal, R.info.deals || 1);
    showChart();
    analysis.start();
    await show();
  }

  /** The match's running totals deal by deal, from the record (each deal's result). */
  async function showChart() {
    let record;
    try {
      record = await api.record(id);
    } catch {
      return; // the replay goes on without its chart
    }
    if (R.stopped) return;
    const scores = (record.deals || []).filter((deal) => deal.result).map((deal) => deal.result.team_scores);
    if (!scores.length) return;
    const totals = runningTotals(scores);
    const options = (R.info.rules && R.info.rules.options) || {};
    clear(chartBox);
    chartBox.append(
      h("h2", { id: "replay-chart-title" }, t("chart.title")),
      h(
        "figure",
        { class: "chart-box" },
        scoreChart(totals, { target: options.target || null, names: teamName }),
        h(
          "figcaption",
          { class: "chart-legend", "aria-hidden": "true" },
          totals.map((_, team) => h("span", { class: `legend-item team-text team-${team}` }, h("span", { class: "legend-swatch" }), `${teamName(team)} ${totals[team][totals[team].length - 1]}`)),
        ),
      ),
    );
    chartBox.hidden = false;
  }

  function controls() {
    const deals = R.info.deals || 1;
    const dealSelect = h(
      "select",
      { id: "replay-deal", "aria-label": t("replay.deal_picker") },
      Array.from({ length: deals }, (_, i) => h("option", { value: i + 1, selected: i + 1 === R.deal }, t("replay.deal_n", { n: i + 1 }))),
    );
    dealSelect.addEventListener("change", () => go(Number(dealSelect.value), 0));
    const total = R.total ?? 0;
    const button = (bid, label, icon, step, disabled) =>
      h("button", { type: "button", id: bid, class: "big", "aria-label": label, title: label, disabled, onclick: () => go(R.deal, step) }, stepIcon(icon));
    return h(
      "div",
      { class: "replay-controls", role: "toolbar", "aria-label": t("replay.controls") },
      h("label", { class: "field inline" }, h("span", { class: "field-label" }, t("replay.deal")), dealSelect),
      h(
        "div",
        { class: "step-buttons" },
        button("replay-first", t("replay.first"), "first", 0, R.step === 0),
        button("replay-prev", t("replay.prev"), "prev", R.step - 1, R.step === 0),
        h("span", { class: "step-count", id: "replay-step", "aria-live": "polite" }, h("span", { class: "step-long" }, t("replay.step", { k: R.step, n: total })), h("span", { class: "step-short", "aria-hidden": "true" }, `${R.step} / ${total}`)),
        button("replay-next", t("replay.next"), "next", R.step + 1, R.step >= total),
        button("replay-last", t("replay.last"), "last", total, R.step >= total),
      ),
    );
  }

  async function go(deal, step) {
    if (R.loading) return;
    if (deal !== R.deal) R.total = null;
    R.step = Math.max(0, R.total !== null ? Math.min(step, R.total) : step);
    R.deal = deal;
    history.replaceState(null, "", `/t/${encodeURIComponent(id)}?replay&deal=${R.deal}&step=${R.step}`);
    await show();
  }

  async function show() {
    R.loading = true;
    let pos;
    let prev = null;
    try {
      pos = await position(R.deal, R.step);
      R.total = pos.total;
      if (R.step > 0) prev = await position(R.deal, R.step - 1);
    } catch (error) {
      R.loading = false;
      clear(body);
      body.append(h("p", { class: "error-line" }, t("error.server", { message: error.message })));
      return;
    }
    R.loading = false;
    if (R.stopped) return;
    // the deal's last step may come as its result with the hands only: the table is the step before
    let table = pos.over && prev ? prev : pos;
    if (pos.over && prev && pos.action && actionParts(pos.action).kind === "discard") {
      // the closing discard lands on the pile
      table = { ...prev, discard: [...(prev.discard || []), actionParts(pos.action).cards[0]] };
    }
    clear(head);
    const ruleName = String(R.info.rules.name || "").replace(/\*$/, "");
    head.append(
      h(
        "div",
        { class: "replay-title" },
        h("h1", {}, t("replay.heading", { rules: presetLabel(ruleName) })),
        h(
          "div",
          { class: "row-actions" },
          h("a", { class: "button small", id: "record", href: api.recordUrl(id), download: `biriba-${id}.json` }, t("result.record")),
          h("a", { class: "button small", href: "/", "data-link": true }, t("nav.lobby")),
        ),
      ),
    );
    clear(bar);
    bar.append(controls());
    const what = h("p", { class: "replay-action", id: "replay-action" });
    if (R.step === 0) what.append(t("replay.start", { who: names(table.dealer ?? 0) }));
    else if (pos.action) {
      const seat = prev && typeof prev.to_move === "number" ? prev.to_move : undefined;
      const kind = actionParts(pos.action).kind;
      const event = { kind: "action", seat, action: pos.action, drawn: null, taken: [] };
      if (prev && kind === "draw" && Array.isArray(prev.stock) && prev.stock.length) event.drawn = prev.stock[0];
      if (prev && kind === "take" && Array.isArray(prev.discard)) event.taken = prev.discard;
      const lines = eventWords(event, null, (s) => (s === undefined ? "?" : names(s)));
      lines.forEach((line, i) => {
        if (i) what.append(" ");
        what.append(tnode(line.key, line.params));
      });
    }
    clear(body);
    body.append(what);
    const costly = pos.over ? null : analysis.at(R.deal, R.step); // the costly decision made from here, if any
    if (costly) body.append(analysis.note(costly));
    if (pos.over && pos.result) body.append(resultBox(pos.result, prev && typeof prev.to_move === "number" ? prev.to_move : null));
    body.append(boardOf(table, pos.over ? pos.hands : null, costly ? { seat: costly.seat, cards: [...costly.best_cards] } : null));
    analysis.show(R.deal, R.step, R.total);
    const next = $("#replay-next");
    if (document.activeElement === document.body && next) next.focus();
  }

  function resultBox(result, closer) {
    const teams = result.breakdown.map((_, i) => i);
    const keys = ["melds", "bonuses", "hands", "going_out", "reserve", "cut", "total"].filter((k) => result.breakdown[0] && k in result.breakdown[0]);
    const winners = result.winners || [];
    return h(
      "section",
      { class: "result-panel" },
      h("h2", {}, t("replay.deal_over", { how: endedWords(result.ended_by, closer, null, names) })),
      winners.length ? h("p", { class: "winner" }, winners.length > 1 ? t("result.tied", { teams: winners.map(teamName).join(" & ") }) : t("result.they_win", { team: teamName(winners[0]) })) : null,
      h(
        "table",
        { class: "breakdown" },
        h("thead", {}, h("tr", {}, h("th", {}, ""), teams.map((team) => h("th", { class: `team-text team-${team}` }, teamName(team))))),
        h("tbody", {}, keys.map((key) => h("tr", { class: key === "total" ? "total" : "" }, h("th", { scope: "row" }, t(`part.${key}`)), teams.map((team) => h("td", {}, String(result.breakdown[team][key])))))),
      ),
    );
  }

  /** The board; `better` ({seat, cards}) marks the cards of the move the analysis found better in that hand. */
  function boardOf(pos, finalHands, better = null) {
    const wilds = R.wilds;
    const out = h("div", { class: "replay-board" });
    const teamsBox = h("div", { class: `teams teams-${(pos.melds || []).length}` });
    (pos.melds || []).forEach((melds, team) => {
      const board = (pos.board && pos.board[team]) || { points: 0, melds: [] };
      const list = h("div", { class: "meld-list" });
      melds.forEach((tokens, i) => {
        const info = board.melds[i] || { kind: "run", size: tokens.length, clean: true, biriba: false, bonus: 0 };
        list.append(meldTile(team, i + 1, tokens, info, wilds));
      });
      if (!melds.length) list.append(h("p", { class: "no-melds muted" }, t("board.no_melds")));
      const reserve = pos.reserves ? pos.reserves[team] : null;
      teamsBox.append(
        h(
          "section",
          { class: `team-panel team-${team}` },
          h(
            "header",
            { class: "team-head" },
            h("h2", {}, h("span", { class: "team-letter", "aria-hidden": "true" }, teamLetter(team)), " ", teamName(team)),
            h("p", { class: "team-facts" }, h("span", {}, t("team.on_table", { n: board.points })), h("span", {}, reserve ? (reserve.active ? t("reserve.taken_by", { who: names(reserve.seat) }) : t("reserve.next_turn", { who: names(reserve.seat) })) : t("reserve.not_taken"))),
          ),
          list,
        ),
      );
    });
    const hands = finalHands ? finalHands.map((hand) => hand.map(cardOf)) : pos.hands || [];
    const handsBox = h("section", { class: "open-hands", "aria-label": t("replay.hands") }, h("h2", {}, t("replay.hands")));
    const toMark = better ? [...better.cards] : [];
    const marked = (face, card, seat) => {
      const at = better && better.seat === seat ? toMark.indexOf(card) : -1;
      if (at >= 0) {
        toMark.splice(at, 1);
        face.classList.add("better-card");
      }
      return face;
    };
    hands.forEach((hand, seat) => {
      const cards = Array.isArray(hand) ? sortHand(hand, wilds) : [];
      const team = teamOfSeat(seat);
      handsBox.append(
        h(
          "div",
          { class: `open-hand team-${team}${pos.to_move === seat && !finalHands ? " turn" : ""}`, "data-seat": seat },
          h("p", { class: "open-hand-name" }, h("span", { class: "player-team", "aria-hidden": "true" }, teamLetter(team)), " ", names(seat), " ", h("span", { class: "muted" }, t("player.cards", { n: cards.length }))),
          h("div", { class: "meld-cards", role: "img", "aria-label": cards.map(cardName).join(", ") || t("hand.empty") }, cards.map((card) => marked(miniCard(card, wilds), card, seat))),
        ),
      );
    });
    const pile = pos.discard || [];
    const stock = Array.isArray(pos.stock) ? pos.stock.length : pos.stock && pos.stock.count;
    const packets = Array.isArray(pos.packets) ? pos.packets.length : 0;
    const facts = h(
      "section",
      { class: "replay-facts" },
      h("p", {}, t("stock.title"), ": ", String(stock ?? "–"), " · ", t("packets.left", { n: packets }), pos.trump ? ` · ${t("trump.label")} ${pos.trump}` : ""),
      h("p", {}, t("pile.title"), ` (${pile.length}): `),
      h("div", { class: "meld-cards pile-row", role: "img", "aria-label": pile.map(cardName).join(", ") || t("pile.empty") }, pile.map((card) => miniCard(card, wilds))),
    );
    out.append(facts, handsBox, teamsBox);
    return out;
  }

  function onKey(event) {
    if (!R.info || R.total === null) return;
    if (event.target && ["INPUT", "SELECT", "TEXTAREA"].includes(event.target.tagName)) return;
    if (event.key === "ArrowRight" && R.step < R.total) go(R.deal, R.step + 1);
    else if (event.key === "ArrowLeft" && R.step > 0) go(R.deal, R.step - 1);
    else if (event.key === "Home") go(R.deal, 0);
    else if (event.key === "End") go(R.deal, R.total);
    else return;
    event.preventDefault();
  }
  document.addEventListener("keydown", onKey);
  start();
  return () => {
    R.stopped = true;
    analysis.stop();
    document.removeEventListener("keydown", onKey);
  };
}
