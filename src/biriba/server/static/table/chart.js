// The score chart: each team's running total deal by deal as a line, the
// match's target as a dashed line, in an inline SVG drawn with attributes and
// classes only (the page's CSP allows no inline style).  chartGeometry() is
// the pure part (tested on its own); scoreChart() draws it.

import { svg } from "../dom.js";
import { t } from "../i18n.js";

/** The chart's size in SVG units and its margins: room on the left for the numbers, below for the deals. */
export const CHART = { width: 320, height: 160, left: 40, right: 10, top: 10, bottom: 22 };

/** Running totals per team from each deal's team scores: [[310, 520], [-45, 100]] for scores [[310, -45], [210, 145]]. */
export function runningTotals(scoresByDeal) {
  const teams = scoresByDeal.length ? scoresByDeal[0].length : 0;
  const out = Array.from({ length: teams }, () => []);
  const sums = new Array(teams).fill(0);
  for (const scores of scoresByDeal) {
    scores.forEach((score, team) => {
      sums[team] += score;
      out[team].push(sums[team]);
    });
  }
  return out;
}

/** A round step for the value axis: 1, 2 or 5 times a power of ten, about `span / 4`. */
export function niceStep(span) {
  if (!(span > 0)) return 1;
  const rough = span / 4;
  const power = 10 ** Math.floor(Math.log10(rough));
  const unit = rough / power;
  return (unit <= 1 ? 1 : unit <= 2 ? 2 : unit <= 5 ? 5 : 10) * power;
}

/**
 * Where everything goes.  `totals[team]` are the team's running totals after
 * deals 1..n; each line starts at 0 before deal 1.  The value range holds 0,
 * every total and the target, with round ticks.  Returns {x(deal), y(value),
 * lines: [{team, points: [[x, y], ...]}], target: y or null, ticks: [{value, y}],
 * deals: [{deal, x}], min, max}.
 */
export function chartGeometry(totals, target = null, size = CHART) {
  const deals = Math.max(1, ...totals.map((line) => line.length));
  const values = [0, ...totals.flat()];
  if (typeof target === "number" && target > 0) values.push(target);
  const step = niceStep(Math.max(...values) - Math.min(...values));
  const min = Math.floor(Math.min(...values) / step) * step;
  const max = Math.max(min + step, Math.ceil(Math.max(...values) / step) * step);
  const plotW = size.width - size.left - size.right;
  const plotH = size.height - size.top - size.bottom;
  const round = (v) => Math.round(v * 10) / 10;
  const x = (deal) => round(size.left + (deal / deals) * plotW);
  const y = (value) => round(size.top + ((max - value) / (max - min)) * plotH);
  const lines = totals.map((line, team) => ({ team, points: [[x(0), y(0)], ...line.map((v, i) => [x(i + 1), y(v)])] }));
  const ticks = [];
  for (let value = min; value <= max + step / 2; value += step) ticks.push({ value, y: y(value) });
  const dealMarks = [];
  const every = Math.max(1, Math.ceil(deals / 8));
  for (let deal = 1; deal <= deals; deal += every) dealMarks.push({ deal, x: x(deal) });
  return { x, y, lines, target: typeof target === "number" && target > 0 ? y(target) : null, ticks, deals: dealMarks, min, max };
}

/**
 * The chart as an SVG element: `totals` per team (running), `names(team)` a
 * team's name, `order` the teams in the order to name them, `target` the match's.
 */
export function scoreChart(totals, { target = null, names = (team) => String(team + 1), order = null, id = null } = {}) {
  const g = chartGeometry(totals, target);
  const teams = order || totals.map((_, team) => team);
  const last = (team) => (totals[team] && totals[team].length ? totals[team][totals[team].length - 1] : 0);
  const summary = teams.map((team) => t("chart.team_total", { team: names(team), n: last(team) })).join(", ");
  const label = t("chart.label", { totals: summary }) + (g.target !== null ? " " + t("chart.target", { n: target }) : "");
  const { width, height, left, right } = CHART;
  return svg(
    "svg",
    { viewBox: `0 0 ${width} ${height}`, class: "score-chart", id, role: "img", "aria-label": label, preserveAspectRatio: "xMidYMid meet" },
    svg("title", {}, label),
    g.ticks.map((tick) => [
      svg("line", { x1: left, x2: width - right, y1: tick.y, y2: tick.y, class: tick.value === 0 ? "chart-grid chart-zero" : "chart-grid" }),
      svg("text", { x: left - 4, y: tick.y + 3.5, class: "chart-tick", "text-anchor": "end" }, String(tick.value)),
    ]),
    g.deals.map((mark) => svg("text", { x: mark.x, y: height - 6, class: "chart-tick", "text-anchor": "middle" }, String(mark.deal))),
    g.target !== null
      ? [
          svg("line", { x1: left, x2: width - right, y1: g.target, y2: g.target, class: "chart-target", "stroke-dasharray": "5 4" }),
          svg("text", { x: width - right, y: g.target - 3, class: "chart-tick chart-target-label", "text-anchor": "end" }, t("chart.goal", { n: target })),
        ]
      : null,
    g.lines.map((line) => [
      svg("polyline", { points: line.points.map((p) => p.join(",")).join(" "), class: `chart-line team-${line.team}`, fill: "none" }),
      line.points.slice(1).map((p) => svg("circle", { cx: p[0], cy: p[1], r: 2.6, class: `chart-dot team-${line.team}` })),
    ]),
  );
}
