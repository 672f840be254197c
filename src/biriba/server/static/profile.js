// A player's profile (/p/{name}: ratings by preset family and the latest finished matches) and the
// leaderboard (/leaderboard?rules=classic), as the server computes them (docs/ratings.md).

import { api } from "./api.js";
import { clear, h } from "./dom.js";
import { language, t } from "./i18n.js";
import { presetLabel } from "./lobby.js";

function ratingWords(shown) {
  return t("profile.rating", { rating: shown.rating.toFixed(1), uncertainty: shown.uncertainty.toFixed(1) });
}

function failed(panel, error) {
  clear(panel);
  panel.append(
    h("h1", {}, error.status === 404 ? t("error.code.no_player") : t("error.server", { message: error.message })),
    h("p", {}, h("a", { href: "/", "data-link": true, class: "button" }, t("nav.lobby"))),
  );
}

function matchItem(played) {
  const when = new Date(played.finished * 1000).toLocaleDateString(language(), { day: "numeric", month: "short", year: "numeric" });
  const result = t(played.won ? "profile.won" : "profile.lost", { score: played.score, others: played.others.join(" : ") });
  let rated = t("profile.unrated");
  if (played.rated) {
    const change = played.rating_change ?? 0;
    rated = t(played.with_bots ? "profile.rated_bots" : "profile.rated", { change: (change >= 0 ? "+" : "−") + Math.abs(change).toFixed(1) });
  }
  const names = (seats) => seats.map((seat) => (seat.bot ? t(`bot.${seat.bot}`) : seat.name)).join(", ");
  const people = [
    played.partners.length ? t("profile.partners", { names: names(played.partners) }) : null,
    t("profile.opponents", { names: names(played.opponents) }),
  ].filter(Boolean);
  return h(
    "li",
    { class: "match-row", "data-testid": "match" },
    h("div", { class: "match-head" }, h("strong", {}, presetLabel(played.rules)), " ", h("span", { class: "muted" }, when)),
    h("div", {}, people.join(" · ")),
    h("div", {}, h("span", { class: played.won ? "won" : "lost" }, result), " · ", h("span", { class: "muted", "data-testid": "rated" }, rated)),
    h("a", { href: played.replay, "data-link": true, class: "button small" }, t("profile.replay")),
  );
}

/** A signed-in visitor's dealings with another player: block or unblock them, and report them to the operators. */
function dealings(name) {
  const error = h("p", { class: "error-line", role: "alert", id: "dealings-error" });
  const done = h("p", { class: "muted", role: "status", id: "dealings-done" });
  const blocking = h("button", { type: "button", id: "block" }, t("profile.block"));
  let blocked = false;
  const show = () => {
    blocking.textContent = t(blocked ? "profile.unblock" : "profile.block");
  };
  api
    .myBlocks()
    .then((answer) => {
      blocked = answer.blocks.some((held) => held.name === name);
      show();
    })
    .catch(() => {});
  blocking.addEventListener("click", async () => {
    error.textContent = done.textContent = "";
    try {
      await (blocked ? api.unblock(name) : api.block(name));
      blocked = !blocked;
      show();
      done.textContent = t(blocked ? "profile.blocked" : "profile.unblocked", { name });
    } catch (failure) {
      error.textContent = failure.message;
    }
  });
  const reason = h("textarea", { id: "report-reason", maxlength: 500, rows: 3, required: true });
  const form = h(
    "form",
    { id: "report-form", class: "create-form", novalidate: true },
    h("label", { class: "field" }, h("span", { class: "field-label" }, t("profile.report_reason")), reason),
    h("div", { class: "row-actions" }, h("button", { type: "submit", id: "report" }, t("profile.report"))),
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    error.textContent = done.textContent = "";
    try {
      await api.report(name, reason.value.trim());
      reason.value = "";
      done.textContent = t("profile.reported", { name });
    } catch (failure) {
      error.textContent = failure.message;
    }
  });
  return h(
    "section",
    { class: "dealings", "aria-labelledby": "dealings-title" },
    h("h2", { id: "dealings-title" }, t("profile.dealings")),
    h("p", { class: "help" }, t("profile.block_help")),
    h("div", { class: "row-actions" }, blocking),
    h("details", {}, h("summary", { id: "report-open" }, t("profile.report")), form),
    done,
    error,
  );
}

export function showProfile(page, name) {
  const view = page.view();
  view.className = "lobby";
  const panel = h("section", { class: "panel narrow profile" }, h("p", { class: "muted" }, t("loading")));
  view.append(panel);
  page.title(name);
  let stopped = false;
  api
    .player(name)
    .then((profile) => {
      if (stopped) return;
      clear(panel);
      page.title(profile.name);
      const families = Object.entries(profile.ratings);
      panel.append(
        h("h1", { "data-testid": "profile-name" }, profile.name),
        h("h2", {}, t("profile.ratings")),
        families.length
          ? h(
              "ul",
              { class: "rating-list" },
              families.map(([family, shown]) =>
                h(
                  "li",
                  { "data-testid": "rating", "data-family": family },
                  h("a", { href: `/leaderboard?rules=${encodeURIComponent(family)}`, "data-link": true }, presetLabel(family)),
                  ": ",
                  h("strong", {}, ratingWords(shown)),
                  " ",
                  h("span", { class: "muted" }, t("profile.matches_played", { n: shown.matches })),
                ),
              ),
            )
          : h("p", { class: "muted" }, t("profile.no_ratings")),
        h("h2", {}, t("profile.history")),
        profile.matches.length ? h("ul", { class: "match-list" }, profile.matches.map(matchItem)) : h("p", { class: "muted" }, t("profile.no_matches")),
      );
      api
        .me()
        .then((me) => {
          if (!stopped && me.name && me.name !== profile.name) panel.append(dealings(profile.name));
        })
        .catch(() => {}); // a guest, or the server away: no buttons
    })
    .catch((error) => stopped || failed(panel, error));
  return () => {
    stopped = true;
  };
}

export function showLeaderboard(page, params) {
  const rules = params.get("rules") || "classic";
  const view = page.view();
  view.className = "lobby";
  const panel = h("section", { class: "panel narrow leaderboard" }, h("p", { class: "muted" }, t("loading")));
  view.append(panel);
  page.title(t("leaderboard.title", { rules: presetLabel(rules) }));
  let stopped = false;
  api
    .leaderboard(rules)
    .then((board) => {
      if (stopped) return;
      clear(panel);
      const rows = board.players.map((player, place) =>
        h(
          "tr",
          { "data-testid": "ranked" },
          h("td", {}, String(place + 1)),
          h("td", {}, h("a", { href: `/p/${encodeURIComponent(player.name)}`, "data-link": true }, player.name)),
          h("td", {}, ratingWords(player)),
          h("td", {}, String(player.matches)),
        ),
      );
      panel.append(
        h("h1", {}, t("leaderboard.title", { rules: presetLabel(rules) })),
        h("p", { class: "muted" }, t("leaderboard.help", { n: board.least_matches })),
        rows.length
          ? h(
              "table",
              { class: "leaderboard-table" },
              h("thead", {}, h("tr", {}, ["leaderboard.place", "leaderboard.player", "leaderboard.rating", "leaderboard.matches"].map((key) => h("th", { scope: "col" }, t(key))))),
              h("tbody", {}, rows),
            )
          : h("p", { "data-testid": "leaderboard-empty" }, t("leaderboard.empty")),
      );
    })
    .catch((error) => stopped || failed(panel, error));
  return () => {
    stopped = true;
  };
}
