// Every move seen: a card travels from where it left (the stock, the pile, a
// player or the own hand) to where it lands, in about a quarter of a second,
// so that a player sees what the others did.  Nothing moves under reduced
// motion, on the first state, or while the page is hidden.  The flying card is
// a copy laid over the page (`data-testid=flight`), removed when it lands.

import { cardBack, miniCard } from "../cards.js";
import { h } from "../dom.js";
import { actionParts } from "../words.js";
import * as M from "./model.js";

export const FLIGHT_MS = 250;

/** Whether moves are shown moving: not when the reader asked for less motion. */
export function moving() {
  return !window.matchMedia("(prefers-reduced-motion: reduce)").matches && document.visibilityState === "visible";
}

/** Where the own hand's cards were before a state changed them: card code -> its rectangle. */
export function handPlaces(ctx) {
  const places = {};
  for (const card of ctx.el.handBox.querySelectorAll("[data-testid=hand-card]")) {
    places[card.dataset.card] ??= card.getBoundingClientRect();
  }
  return places;
}

function rectOf(selector) {
  const el = document.querySelector(selector);
  if (!el) return null;
  const r = el.getBoundingClientRect();
  return r.width > 0 && r.height > 0 ? r : null;
}

/** Where a seat's cards come from or go to: the own hand, or the player's place in the strip. */
function seatPlace(S, seat, card = null) {
  if (seat === S.me) {
    const fresh = card && document.querySelector(`#hand [data-testid=hand-card][data-card="${card}"]`);
    return fresh ? fresh.getBoundingClientRect() : rectOf("#hand");
  }
  return rectOf(`[data-testid=player][data-seat="${seat}"]`);
}

function meldPlace(S, event, parts) {
  const team = M.teamOf(S, event.seat);
  const index = parts.kind === "add" ? parts.meld : M.teamMelds(S, team).length;
  return rectOf(`[data-testid=meld][data-team="${team}"][data-index="${index}"]`);
}

/** One card flying from `from` to `to` (rectangles), drawn as `picture`. */
function fly(picture, from, to, delay) {
  const width = 34;
  const flight = h("div", { class: "flight", "data-testid": "flight", "aria-hidden": "true" }, picture);
  const start = (r) => [r.left + r.width / 2 - width / 2, r.top + r.height / 2 - width * 0.7];
  const [x0, y0] = start(from);
  const [x1, y1] = start(to);
  flight.style.left = `${x0}px`;
  flight.style.top = `${y0}px`;
  document.body.append(flight);
  const motion = flight.animate(
    [{ transform: "translate(0, 0) scale(1)" }, { transform: `translate(${x1 - x0}px, ${y1 - y0}px) scale(1)` }],
    { duration: FLIGHT_MS, delay, easing: "cubic-bezier(0.2, 0.7, 0.3, 1)", fill: "both" },
  );
  motion.finished.then(() => flight.remove(), () => flight.remove());
}

/** Show the new action events moving, after the table was drawn anew (`handBefore`: the own hand's places before). */
export function showMoves(ctx, events, handBefore) {
  if (!moving()) return;
  const { S } = ctx;
  const wild = M.wilds(S);
  let delay = 0;
  for (const event of events) {
    if (event.kind !== "action" || typeof event.action !== "string") continue;
    const parts = actionParts(event.action);
    const mine = event.seat === S.me;
    let from = null;
    let to = null;
    let picture = null;
    if (parts.kind === "draw") {
      from = rectOf("#stock");
      to = seatPlace(S, event.seat, mine ? event.drawn : null);
      picture = mine && event.drawn ? miniCard(event.drawn, wild) : cardBack("flight-back");
    } else if (parts.kind === "take") {
      const taken = event.taken || [];
      from = rectOf("#pile");
      to = seatPlace(S, event.seat, mine ? taken[taken.length - 1] : null);
      picture = taken.length ? miniCard(taken[taken.length - 1], wild) : cardBack("flight-back");
    } else if (parts.kind === "discard") {
      from = (mine && handBefore[parts.cards[0]]) || seatPlace(S, event.seat);
      to = rectOf("#pile");
      picture = miniCard(parts.cards[0], wild);
    } else if (parts.kind === "meld" || parts.kind === "add") {
      from = (mine && handBefore[parts.cards[0]]) || seatPlace(S, event.seat);
      to = meldPlace(S, event, parts);
      picture = miniCard(parts.tokens[0], wild);
    }
    if (from && to && picture) {
      fly(picture, from, to, delay);
      delay += FLIGHT_MS * 0.6; // moves told together follow each other
    }
  }
}
