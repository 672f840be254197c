// A finished match's analysis in its replay (docs/analysis.md): what each decision cost, valued by the
// server's search bot.  The server makes it once (POST /api/tables/{id}/analysis) and keeps it; this panel
// asks for it, shows how far it has got, then each seat's figures, the deal's expected-margin graph with the
// costly decisions marked (a click goes there), and the note on the table at a costly decision.  Every figure
// is the server's: nothing here judges a move.

import { api } from "./api.js";
import { clear, h, svg } from "./dom.js";
import { t } from "./i18n.js";

/** How often the panel asks how far an analysis has got, in milliseconds. */
const LOOK_EVERY = 1500;
/** The graph's size in SVG units, and its margins. */
export const GRAPH = { width: 320, height: 130, left: 40, right: 8, top: 8, bottom: 18 };

/**
 * Where the deal's graph puts everything: each team's expected margin at its own decisions as a line over the
 * deal's actions (0..total), the labelled decisions as marks.  Pure (tested on its own).
 */
export function graphGeometry(decisions, total, size = GRAPH) {
  const values = [0, ...decisions.map((d) => d.value)];
  const span = Math.max(...values) - Math.min(...values) || 1;
  const min = Math.min(...values) - span * 0.05;
  const max = Math.max(...values) + span * 0.05;
  const last = Math.max(1, total, ...decisions.map((d) => d.index));
  const plotW = size.width - size.left - size.right;
  const plotH = size.height - size.top - size.bottom;
  const round = (v) => Math.round(v * 10) / 10;
  const x = (step) => round(size.left + (step / last) * plotW);
  const y = (value) => round(size.top + ((max - value) / (max - min)) * plotH);
  const teams = [...new Set(decisions.map((d) => d.team))].sort();
  const lines = teams.map((team) => ({ team, points: decisions.filter((d) => d.team === team).map((d) => [x(d.index - 1), y(d.value)]) }));
  const marks = decisions.filter((d) => d.label).map((d) => ({ decision: d, x: x(d.index - 1), y: y(d.value) }));
  return { x, y, lines, marks, zero: y(0), min: Math.round(min), max: Math.round(max) };
}

export function analysisPanel(id, hooks) {
  const panel = h("section", { class: "replay-chart panel replay-analysis", id: "analysis", "aria-labelledby": "analysis-title" });
  const A = { made: null, timer: null, stopped: false };

  const heading = () => h("h2", { id: "analysis-title" }, t("analysis.title"));
  const decisionsOf = (deal) => (A.made ? A.made.decisions.filter((d) => d.deal === deal) : []);

  /** The button that asks for the analysis; `why` says what became of an earlier one. */
  function offer(why = null) {
    clear(panel);
    const ask = h("button", { type: "button", id: "analyse", class: "primary" }, t("analysis.ask"));
    ask.addEventListener("click", async () => {
      ask.disabled = true;
      try {
        shown(await api.askAnalysis(id));
      } catch (error) {
        failed(error);
      }
    });
    panel.append(heading(), why ? h("p", { class: "error-line", role: "alert", id: "analysis-error" }, why) : null, h("p", { class: "help" }, t("analysis.help")), ask);
  }

  function failed(error) {
    clear(panel);
    panel.append(heading(), h("p", { class: "error-line", role: "alert", id: "analysis-error" }, error.message));
  }

  function shown(status) {
    if (A.stopped) return;
    if (status.status === "done") {
      A.made = status.analysis;
      hooks.changed();
      return;
    }
    if (status.status === "none") {
      offer();
      return;
    }
    if (status.status === "stalled" || status.status === "failed") {
      offer(t(`analysis.${status.status}`));
      return;
    }
    clear(panel);
    const words = status.total ? t("analysis.running", { done: status.done, total: status.total }) : t("analysis.queued");
    panel.append(
      heading(),
      h("p", { id: "analysis-progress", role: "status" }, words),
      h("progress", { max: status.total || 1, value: status.done || 0, "aria-hidden": "true" }),
    );
    A.timer = setTimeout(look, LOOK_EVERY);
  }

  async function look() {
    try {
      shown(await api.analysis(id));
    } catch (error) {
      failed(error);
    }
  }

  function seatsTable() {
    const labels = Object.keys(A.made.labels); // the server's, the worst first
    return h(
      "table",
      { class: "breakdown analysis-seats", id: "analysis-seats" },
      h("thead", {}, h("tr", {}, h("th", {}, t("analysis.player")), h("th", {}, t("analysis.accuracy")), h("th", {}, t("analysis.cost")), h("th", {}, t("analysis.counts")))),
      h(
        "tbody",
        {},
        A.made.seats.map((s) =>
          h(
            "tr",
            { "data-seat": s.seat },
            h("th", { scope: "row" }, hooks.names(s.seat)),
            h("td", {}, `${Math.round(s.accuracy)}%`),
            h("td", {}, String(Math.round(s.total_cost))),
            h(
              "td",
              { class: "analysis-counts" },
              labels.map((name) => h("span", { class: `analysis-label ${name}`, title: t(`analysis.${name}_count`), "aria-label": `${t(`analysis.${name}_count`)}: ${s.labels[name] || 0}` }, String(s.labels[name] || 0))),
            ),
          ),
        ),
      ),
    );
  }

  function graph(deal, step, total) {
    const decisions = decisionsOf(deal);
    const g = graphGeometry(decisions, total);
    const { width, height, left, right, top, bottom } = GRAPH;
    const marks = g.marks.map((m) => {
      const d = m.decision;
      const words = t("analysis.mark", { who: hooks.names(d.seat), action: d.action, label: t(`analysis.${d.label}`), cost: Math.round(d.cost) });
      const mark = svg(
        "circle",
        { cx: m.x, cy: m.y, r: 5, class: `analysis-mark ${d.label}`, tabindex: 0, role: "button", "aria-label": words, "data-step": d.index - 1 },
        svg("title", {}, words),
      );
      const jump = () => hooks.go(deal, d.index - 1);
      mark.addEventListener("click", jump);
      mark.addEventListener("keydown", (event) => {
        if (event.key === "Enter" || event.key === " ") {
          event.preventDefault();
          jump();
        }
      });
      return mark;
    });
    return h(
      "figure",
      { class: "chart-box" },
      svg(
        "svg",
        { viewBox: `0 0 ${width} ${height}`, class: "score-chart analysis-graph", id: "analysis-graph", role: "group", "aria-label": t("analysis.graph_label", { deal }) },
        svg("line", { x1: left, x2: width - right, y1: g.zero, y2: g.zero, class: "chart-grid chart-zero" }),
        svg("text", { x: left - 4, y: top + 8, class: "chart-tick", "text-anchor": "end" }, String(g.max)),
        svg("text", { x: left - 4, y: height - bottom, class: "chart-tick", "text-anchor": "end" }, String(g.min)),
        svg("line", { x1: g.x(step), x2: g.x(step), y1: top, y2: height - bottom, class: "analysis-now" }),
        g.lines.map((line) => svg("polyline", { points: line.points.map((p) => p.join(",")).join(" "), class: `chart-line team-${line.team}`, fill: "none" })),
        marks,
      ),
      h("figcaption", { class: "help" }, t("analysis.graph_help")),
    );
  }

  function costly(deal) {
    const list = decisionsOf(deal).filter((d) => d.label);
    if (!list.length) return h("p", { class: "muted", id: "analysis-none" }, t("analysis.none"));
    return h(
      "ol",
      { class: "analysis-list", id: "analysis-list" },
      list.map((d) =>
        h(
          "li",
          {},
          h(
            "button",
            { type: "button", class: `link analysis-jump ${d.label}`, "data-step": d.index - 1, onclick: () => hooks.go(deal, d.index - 1) },
            h("span", { class: `analysis-label ${d.label}` }, t(`analysis.${d.label}`)),
            " ",
            t("analysis.item", { step: d.index, who: hooks.names(d.seat), action: d.action, best: d.best, cost: Math.round(d.cost), spread: Math.round(d.uncertainty) }),
          ),
        ),
      ),
    );
  }

  return {
    element: panel,
    /** The panel for this deal and step (the graph's line marks the step). */
    show(deal, step, total) {
      if (!A.made) return;
      clear(panel);
      panel.append(heading(), seatsTable(), graph(deal, step, total), costly(deal), h("p", { class: "help" }, t("analysis.note_help", { samples: A.made.samples })));
    },
    /** The costly decision made from this position (the next action), if any: the replay's note and the better move's cards. */
    at(deal, step) {
      return decisionsOf(deal).find((d) => d.index === step + 1 && d.label) || null;
    },
    note(d) {
      return h(
        "p",
        { class: `analysis-note ${d.label}`, id: "analysis-note", role: "note" },
        h("strong", {}, t(`analysis.${d.label}`)),
        " ",
        t("analysis.better", { who: hooks.names(d.seat), action: d.action, best: d.best, cost: Math.round(d.cost), spread: Math.round(d.uncertainty) }),
        d.perfect && d.perfect.best !== d.best ? [" ", h("span", { class: "muted" }, t("analysis.perfect", { best: d.perfect.best }))] : null,
      );
    },
    start: look,
    stop() {
      A.stopped = true;
      clearTimeout(A.timer);
    },
  };
}
