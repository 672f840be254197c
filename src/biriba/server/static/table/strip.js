// The strip above the board: the top bar's rules and match score, whose turn
// it is with the turn clock (and the invite while seats are free), the last
// thing that happened, the players with their badges, and the stock, the
// pile and the deal's facts.

import { cardBack, cardName, miniCard, SUIT_SYMBOLS } from "../cards.js";
import { clear, h, svg } from "../dom.js";
import { icon } from "../icons.js";
import { t } from "../i18n.js";
import { presetLabel, teamLetter } from "../lobby.js";
import { eventWords, tnode } from "../words.js";
import { bubbleFor } from "./chat.js";
import { sendAction } from "./connection.js";
import { openPile, openSeatMenu } from "./dialogs.js";
import { openSide, sideIsSheet } from "./side.js";
import { setSound, soundOn } from "./sound.js";
import * as M from "./model.js";

function clockIcon() {
  return svg(
    "svg",
    { viewBox: "0 0 24 24", width: 16, height: 16, "aria-hidden": "true", focusable: "false", class: "icon" },
    svg("circle", { cx: 12, cy: 13, r: 8, fill: "none", stroke: "currentColor", "stroke-width": 2.2 }),
    svg("path", { d: "M12 9v4.5l3 2M9 2.5h6", fill: "none", stroke: "currentColor", "stroke-width": 2.2, "stroke-linecap": "round" }),
  );
}

/** The preset's name in words, "(changed)" when options differ from it. */
export function rulesTitle(name) {
  const text = String(name || "");
  return presetLabel(text.replace(/\*$/, "")) + (text.endsWith("*") ? " " + t("rules.changed") : "");
}

export function renderTopbar(ctx) {
  const { S, page } = ctx;
  const info = M.tableInfo(S);
  if (!info) {
    page.setTopbar(null);
    return;
  }
  const totals = info.totals || [];
  const score = (team, i) => [
    i ? h("span", { class: "sep", "aria-hidden": "true" }, " · ") : null,
    h(
      "span",
      { class: `team-text team-${team}` },
      h("span", { class: "score-name" }, `${M.teamShort(S, team)} `),
      h("span", { class: "visually-hidden" }, t("team.letter", { letter: teamLetter(team) }) + " "),
      String(totals[team] ?? 0),
    ),
  ];
  page.setTopbar(
    h(
      "div",
      { class: "topbar-table" },
      h("span", { class: "topbar-rules" }, rulesTitle(info.rules.name)),
      info.deals ? h("span", { class: "topbar-deal" }, t("table.deal_n", { n: info.deals })) : null,
      totals.length ? h("span", { class: "topbar-score", "aria-label": t("table.match_score") }, M.teamOrder(S).map(score)) : null,
    ),
  );
}

/** Whose turn it is, in words, and whether it is the reader's ("mine"). */
export function turnText(S) {
  const info = M.tableInfo(S);
  const v = M.viewData(S);
  if (info.status === "over") return { text: t("turn.match_over"), mine: false };
  if (info.status === "broken") return { text: t("turn.broken"), mine: false };
  if (!v) {
    const free = info.seats.filter((s) => s.kind === "person" && !s.name).length;
    return { text: free ? t("turn.waiting_seats", { n: free }) : t("turn.dealing"), mine: false };
  }
  if (S.state.result) return { text: t("turn.deal_over"), mine: false };
  if (M.myTurn(S)) {
    if (M.has(S, "pass")) return { text: t("turn.yours_empty_stock"), mine: true };
    return { text: v.phase === "draw" ? t("turn.yours_draw") : t("turn.yours_play"), mine: true };
  }
  if (M.isSeated(S) && v.to_move === S.me) return { text: t("turn.yours_wait"), mine: false };
  const seat = M.seatInfo(S, v.to_move);
  const who = M.nameOf(S, v.to_move);
  const left = seat && !seat.connected ? M.standInLeft(S, v.to_move) : null;
  if (left !== null) return { text: t("turn.away", { who, n: left }), mine: false, away: true };
  return { text: seat && seat.kind === "bot" ? t("turn.bot_playing", { who }) : t("turn.other", { who }), mine: false };
}

function clockNode(ctx, seconds) {
  const clock = h("span", { class: "clock", id: "clock", "aria-label": t("clock.label") }, "");
  const endsAt = Date.now() + seconds * 1000;
  const tick = () => {
    const left = Math.max(0, Math.round((endsAt - Date.now()) / 1000));
    clear(clock);
    clock.append(clockIcon(), " ", t("clock.left", { n: left }));
    clock.classList.toggle("urgent", left <= 10);
  };
  tick();
  clearInterval(ctx.timers.clock);
  ctx.timers.clock = setInterval(tick, 1000);
  return clock;
}

function inviteNode(ctx, info) {
  const link = new URL(info.invite || `/t/${encodeURIComponent(ctx.id)}`, location.origin).href;
  const input = h("input", { id: "invite", type: "text", readonly: true, value: link, "aria-label": t("created.invite") });
  const copied = h("span", { class: "copied", role: "status" });
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(link);
      copied.textContent = t("created.copied");
    } catch {
      input.select();
      copied.textContent = document.execCommand("copy") ? t("created.copied") : t("created.copy_failed");
    }
  };
  return h("span", { class: "invite-inline" }, input, h("button", { type: "button", id: "copy-invite", class: "small", onclick: copy }, t("created.copy")), copied);
}

export function renderTurn(ctx) {
  const { S } = ctx;
  const { turnLine, lastLine } = ctx.el;
  clear(turnLine);
  clear(lastLine);
  const info = M.tableInfo(S);
  if (!S.state || !info) {
    turnLine.append(h("span", {}, t("conn.connecting")));
    return;
  }
  const v = M.viewData(S);
  const { text, mine, away } = turnText(S);
  clearInterval(ctx.timers.away);
  turnLine.className = `turn-line ${mine ? "mine" : ""}`;
  const words = mine
    ? [h("span", { class: "words-long" }, text), h("span", { class: "words-short", "aria-hidden": "true" }, t("turn.yours_short"))] // the prompt by the hand says what to do
    : text;
  const said = h("span", { class: "turn-text" }, mine ? h("span", { class: "turn-arrow", "aria-hidden": "true" }, "▶ ") : null, words);
  turnLine.append(said);
  if (away) {
    // readers hear the count once (the turn line is a live region); the eye sees it go down
    said.setAttribute("aria-hidden", "true");
    turnLine.append(h("span", { class: "visually-hidden" }, text));
    ctx.timers.away = setInterval(() => {
      said.textContent = turnText(S).text; // the count to the stand-in, a second at a time
    }, 1000);
  }
  if (typeof S.state.clock === "number" && v && !S.state.result) turnLine.append(clockNode(ctx, S.state.clock));
  else clearInterval(ctx.timers.clock);
  if ((S.state.result || info.status === "over") && !S.showResult) {
    const show = () => {
      S.showResult = true;
      ctx.render();
    };
    turnLine.append(h("button", { type: "button", class: "small", id: "show-result", onclick: show }, t("result.show")));
  }
  if (info.status === "open" && !v) turnLine.append(inviteNode(ctx, info));
  // the latest thing that happened, for the phone where the log is below
  const last = [...S.events].reverse().find((e) => e.kind === "action" || e.kind === "result");
  if (last) {
    const closer = last.kind === "result" ? M.closerOf(S, last.deal) : null;
    for (const line of eventWords(last, S.me, (seat) => M.who(S, seat), closer)) lastLine.append(tnode(line.key, line.params), " ");
  }
}

// each badge has its words (with an icon, if given) and a short form for narrow screens
function badge(cls, long, short, mark = null) {
  return h(
    "span",
    { class: `badge ${cls}${short ? "" : " no-short"}`, title: long },
    h("span", { class: "badge-long" }, mark, long),
    h("span", { class: "badge-short", "aria-hidden": "true" }, short),
  );
}

function playerItem(S, info, seat) {
  const v = M.viewData(S);
  const s = info.seats[seat];
  const team = M.teamOf(S, seat);
  const hand = v && v.hands ? v.hands[seat] : null;
  const cards = Array.isArray(hand) ? hand.length : hand && typeof hand.count === "number" ? hand.count : null;
  const turn = v && !S.state.result && v.to_move === seat && info.status !== "over";
  const badges = [];
  if (s.kind === "bot") badges.push(badge("bot", t("bot.badge"), ""));
  else if (s.handed) badges.push(badge("handed", t(seat === S.me ? "player.handed_you" : "player.handed"), icon("bot"), icon("bot")));
  else if (s.stand_in && !s.name) badges.push(badge("handed", t("player.left"), icon("bot"), icon("bot")));
  else if (s.stand_in) badges.push(badge("standin", "⚠ " + t("player.stand_in"), "⚠"));
  else if (!s.name) badges.push(badge("free", t("seat.free"), t("seat.free"))); // nobody sat down yet: free, not away
  else if (!s.connected) badges.push(badge("offline", "⚠ " + t("player.offline"), "⚠"));
  if (v && v.dealer === seat) badges.push(badge("dealer", t("player.dealer_short"), t("player.dealer_letter")));
  const reserve = M.reserveOf(S, team);
  if (reserve && reserve.seat === seat) {
    badges.push(reserve.active ? badge("reserve", t("player.has_reserve"), t("player.reserve_letter")) : badge("reserve", t("player.reserve_next"), t("player.reserve_letter") + "…"));
  }
  const label = [M.who(S, seat), cards !== null ? t("player.cards", { n: cards }) : "", ...badges.map((b) => b.title.replace(/^⚠ /u, "")), turn ? t("player.to_play") : ""]
    .filter(Boolean)
    .join(", ");
  return h(
    "li",
    { class: `player team-${team}${turn ? " turn" : ""}${seat === S.me ? " me" : ""}`, "data-testid": "player", "data-seat": seat, "aria-label": label, "aria-current": turn ? "true" : null },
    h("span", { class: "player-team", "aria-hidden": "true" }, teamLetter(team)),
    h("span", { class: "player-name" }, turn ? h("span", { class: "turn-arrow", "aria-hidden": "true" }, "▶ ") : null, M.who(S, seat)),
    cards !== null ? h("span", { class: "player-cards", title: t("player.cards", { n: cards }) }, cardBack("tiny-back"), String(cards)) : null,
    badges,
    bubbleFor(S, seat),
  );
}

/** The players, from the own seat round the table, and who watches. */
export function renderPlayers(ctx) {
  const { S } = ctx;
  const players = ctx.el.players;
  clear(players);
  const info = M.tableInfo(S);
  const watchers = ctx.el.watchers;
  clear(watchers);
  if (!info) {
    watchers.hidden = true;
    return;
  }
  const count = info.seats.length;
  const start = M.isSeated(S) ? S.me : 0;
  for (let k = 0; k < count; k += 1) players.append(playerItem(S, info, (start + k) % count));
  const names = M.watcherNames(S);
  const watching = M.watcherCount(S);
  watchers.hidden = !watching;
  if (watching) {
    const more = watching > names.length ? "…" : "";
    watchers.append(
      icon("eye"),
      " ",
      h("span", { class: "watchers-count" }, t("watchers.count", { n: watching })),
      names.length ? h("span", { class: "watchers-names" }, `: ${names.join(", ")}${more}`) : null,
    );
  }
}

/** The table's tools next to the turn line: the sound switch, the chat, the story and score (a sheet over the table on a phone), the own seat's menu. */
export function makeTools(ctx) {
  const { el } = ctx;
  const tool = (id, name, label, onclick, more = {}) =>
    h("button", { type: "button", id, class: "tool small", onclick, ...more }, h("span", { class: "tool-icon" }, icon(name)), h("span", { class: "tool-label" }, label));
  el.soundButton = tool("sound-toggle", "bell", t("tools.sound"), () => {
    setSound(!soundOn());
    renderTools(ctx);
  });
  el.chatButton = tool("chat-button", "chat", t("tools.chat"), () => {
    ctx.S.unread = 0;
    openSide(ctx, "chat");
    if (!sideIsSheet()) {
      const target = el.chatPanel.querySelector("[data-testid=phrase], #chat-text") || el.chatPanel;
      target.focus({ preventScroll: true });
    }
    renderTools(ctx);
  });
  el.unread = h("span", { class: "unread", "aria-hidden": "true" });
  el.chatButton.append(el.unread);
  el.storyButton = tool("story-button", "sheet", t("tools.story"), () => openSide(ctx, "sheet"), { "aria-haspopup": "dialog" });
  el.seatButton = tool("seat-menu", "person", t("tools.seat"), () => openSeatMenu(ctx), { "aria-haspopup": "dialog" });
  el.tools.append(el.soundButton, el.chatButton, el.storyButton, el.seatButton);
}

export function renderTools(ctx) {
  const { S, el } = ctx;
  const on = soundOn();
  el.soundButton.setAttribute("aria-pressed", on ? "true" : "false");
  el.soundButton.title = on ? t("tools.sound_on") : t("tools.sound_off");
  const shown = el.soundButton.querySelector(".tool-icon");
  clear(shown);
  shown.append(icon(on ? "bell" : "bellOff"));
  el.chatButton.hidden = !S.state || M.chatMode(S) === "off";
  el.unread.textContent = S.unread ? String(S.unread) : "";
  el.unread.hidden = !S.unread;
  el.chatButton.setAttribute("aria-label", S.unread ? t("tools.chat_unread", { n: S.unread }) : t("tools.chat"));
  const seat = M.isSeated(S) ? M.seatInfo(S, S.me) : null;
  const info = M.tableInfo(S);
  el.seatButton.hidden = !seat || !info || info.status === "over";
  el.seatButton.classList.toggle("handed", !!(seat && seat.handed));
}

function pileButton(attrs, picture, title, count) {
  return h(
    "button",
    { type: "button", ...attrs },
    h("span", { class: "pile-card" }, picture || h("span", { class: "empty-slot" })),
    h("span", { class: "pile-text" }, h("span", { class: "pile-title" }, title), h("span", { class: "pile-count" }, String(count))),
  );
}

export function renderPiles(ctx) {
  const { S } = ctx;
  const piles = ctx.el.piles;
  clear(piles);
  const v = M.viewData(S);
  if (!v) return;
  const stockCount = v.stock && typeof v.stock.count === "number" ? v.stock.count : Array.isArray(v.stock) ? v.stock.length : 0;
  const pile = v.discard || [];
  const top = pile.length ? pile[pile.length - 1] : null;
  const canDraw = M.has(S, "draw") && S.pending === null;
  const stock = {
    id: "stock",
    "data-testid": "stock",
    class: `pile-button${canDraw ? " can" : ""}`,
    "aria-label": t("stock.aria", { n: stockCount }) + (canDraw ? ". " + t("stock.draw_hint") : ""),
    onclick: () => {
      if (canDraw) sendAction(ctx, "draw");
    },
    "aria-disabled": canDraw ? null : "true",
  };
  const discard = {
    id: "pile",
    "data-testid": "pile",
    class: `pile-button${S.lastFlash && S.lastFlash.has("pile") ? " flash" : ""}`,
    "aria-label": top ? t("pile.aria", { n: pile.length, card: cardName(top) }) : t("pile.empty"),
    onclick: () => openPile(ctx),
    "aria-haspopup": "dialog",
  };
  piles.append(
    pileButton(stock, stockCount ? cardBack("stock-back") : null, t("stock.title"), stockCount),
    pileButton(discard, top ? miniCard(top, M.wilds(S)) : null, t("pile.title"), pile.length),
  );
  const packets = Array.isArray(v.packets) ? v.packets.length : 0;
  const facts = [
    h(
      "span",
      { class: "fact packets", title: t("packets.help") },
      h("span", { class: "fact-long" }, t("packets.left", { n: packets })),
      h("span", { class: "fact-short", "aria-hidden": "true" }, cardBack("tiny-back"), cardBack("tiny-back"), ` ${packets}`),
    ),
  ];
  if (v.trump) {
    const colour = ["H", "D"].includes(v.trump) ? "ct red" : "ct black";
    facts.push(h("span", { class: "fact trump" }, t("trump.label"), " ", h("span", { class: colour }, SUIT_SYMBOLS[v.trump]), h("span", { class: "visually-hidden" }, t(`suit.${v.trump}`))));
  }
  if (v.turn) facts.push(h("span", { class: "fact muted turn-number" }, t("table.turn_n", { n: v.turn })));
  if (v.last_round) facts.push(h("span", { class: "fact warn" }, t("table.last_round")));
  const idle = M.idleWarning(S);
  if (idle) facts.push(h("span", { class: "fact warn", "data-testid": "idle-left" }, t("table.idle_left", idle)));
  piles.append(h("div", { class: "facts" }, facts));
}
