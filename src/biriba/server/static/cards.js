// Cards: the notation's codes (7H, TS, JK), their names in words, their order
// in a hand, and their pictures (SVG drawn here, suit shapes from the sprite
// in index.html, so no font has to carry the suit symbols).

import { h, svg } from "./dom.js";
import { t } from "./i18n.js";

export const RANKS = "A23456789TJQK";
export const SUITS = "SHDC";
export const SUIT_SYMBOLS = { S: "♠", H: "♥", D: "♦", C: "♣" };
export const JOKER = "JK";
/** Hand order of the suits: colours alternate (♠ ♥ ♣ ♦). */
const SUIT_ORDER = { S: 0, H: 1, C: 2, D: 3 };

export function isJoker(code) {
  return code === JOKER;
}
export function rankOf(code) {
  return isJoker(code) ? null : code[0];
}
export function suitOf(code) {
  return isJoker(code) ? null : code[1];
}
export function rankIndex(code) {
  return isJoker(code) ? 13 : RANKS.indexOf(code[0]);
}
export function isRed(code) {
  const suit = suitOf(code);
  return suit === "H" || suit === "D";
}
/** Is this card a wild at this table?  `wilds`: the codes that play as wilds (a table's `rules.wilds`); a joker always is. */
export function isWildKind(code, wilds) {
  return isJoker(code) || (Array.isArray(wilds) && wilds.includes(code));
}
export function rankLabel(rank) {
  return rank === "T" ? "10" : rank;
}

/** Short text of a card for the log and labels: 7♥, 10♣, Joker. */
export function cardText(code) {
  if (isJoker(code)) return t("card.joker_short");
  return rankLabel(rankOf(code)) + SUIT_SYMBOLS[suitOf(code)];
}

/**
 * A card's name in words, for screen readers: "seven of hearts", "joker"; with
 * the table's `wilds`, a wild that is not a joker says so: "two of clubs, wild".
 * Every rank is a word from the catalog (rank.2 "two", "δυάρι", "due"), never a digit.
 */
export function cardName(code, wilds = null) {
  if (isJoker(code)) return t("card.joker");
  const name = t("card.name", { rank: t(`rank.${rankOf(code)}`), suit: t(`suit.${suitOf(code)}`) });
  return Array.isArray(wilds) && isWildKind(code, wilds) ? `${name}, ${t("card.wild")}` : name;
}

/** A placed card of a meld, "JK=6H" -> {card: "JK", slot: "6H"}. */
export function placed(token) {
  const [card, slot] = token.split("=");
  return { card, slot: slot || null };
}

/** Cards as coloured inline text: 3♥ 4♥ JK(=5♥). */
export function cardsInline(tokens) {
  const out = h("span", { class: "cards-inline" });
  tokens.forEach((token, i) => {
    const { card, slot } = placed(token);
    if (i) out.append(" ");
    const colour = isJoker(card) ? "joker" : isRed(card) ? "red" : "black";
    out.append(h("span", { class: `ct ${colour}` }, cardText(card)));
    if (slot) out.append(h("span", { class: `ct-slot ${isRed(slot) ? "red" : "black"}` }, "=" + cardText(slot)));
  });
  return out;
}

export function cardsPlain(tokens) {
  return tokens
    .map((token) => {
      const { card, slot } = placed(token);
      return slot ? `${cardText(card)}=${cardText(slot)}` : cardText(card);
    })
    .join(" ");
}

/**
 * The hand in playing order: by suit (♠ ♥ ♣ ♦), then rank (A..K), the wilds
 * last; or, with mode "rank", by rank then suit (the wilds still last).
 * `wilds`: the codes that play as wilds at the table.
 */
export function sortHand(cards, wilds, mode = "suit") {
  const key = (code) => {
    if (isJoker(code)) return [2, 0, 0];
    if (isWildKind(code, wilds)) return [1, SUIT_ORDER[suitOf(code)], 0];
    if (mode === "rank") return [0, rankIndex(code), SUIT_ORDER[suitOf(code)]];
    return [0, SUIT_ORDER[suitOf(code)], rankIndex(code)];
  };
  return [...cards].sort((a, b) => {
    const ka = key(a);
    const kb = key(b);
    return ka[0] - kb[0] || ka[1] - kb[1] || ka[2] - kb[2];
  });
}

/** The group a hand card is shown in: its suit, or "wild". */
export function handGroup(code, wilds) {
  return isWildKind(code, wilds) ? "wild" : suitOf(code);
}

const RED = "#c4171c";
const BLACK = "#1d1d1f";
const PURPLE = "#6b2bb0";

function colourOf(code) {
  if (isJoker(code)) return PURPLE;
  return isRed(code) ? RED : BLACK;
}

function suitUse(suit, x, y, size, fill) {
  return svg("use", { href: `#suit-${suit}`, x, y, width: size, height: size, fill });
}

/**
 * A card face, full size (the hand): viewBox 100x140, the index large in the
 * top-left corner so that it reads on an overlapped hand on a phone.
 */
export function cardFace(code, { wild = false, label = null } = {}) {
  const colour = colourOf(code);
  const root = svg("svg", {
    viewBox: "0 0 100 140",
    class: "card-face",
    role: "img",
    "aria-label": label || cardName(code),
    focusable: "false",
  });
  root.append(svg("rect", { x: 1.5, y: 1.5, width: 97, height: 137, rx: 9, class: "card-bg" }));
  if (isJoker(code)) {
    root.append(svg("rect", { x: 6, y: 6, width: 88, height: 128, rx: 6, class: "joker-tint" }));
    root.append(svg("use", { href: "#star", x: 6, y: 6, width: 28, height: 28, fill: PURPLE }));
    "JOKER".split("").forEach((letter, i) => {
      root.append(svg("text", { x: 20, y: 54 + i * 17, class: "joker-letter", fill: PURPLE, "text-anchor": "middle", text: letter }));
    });
    root.append(svg("use", { href: "#star", x: 40, y: 58, width: 52, height: 52, fill: PURPLE, opacity: 0.85 }));
    return root;
  }
  const rank = rankOf(code);
  const suit = suitOf(code);
  const text = rankLabel(rank);
  root.append(
    svg("text", {
      x: 7,
      y: 33,
      class: "card-rank",
      fill: colour,
      "font-size": text.length > 1 ? 29 : 34,
      "letter-spacing": text.length > 1 ? -2.5 : 0,
      text,
    }),
  );
  root.append(suitUse(suit, 7, 39, 26, colour));
  if (wild) {
    root.append(svg("use", { href: "#star", x: 9, y: 70, width: 22, height: 22, fill: PURPLE }));
  }
  if ("JQK".includes(rank)) {
    root.append(svg("rect", { x: 40, y: 14, width: 52, height: 112, rx: 5, class: "face-frame", stroke: colour }));
    root.append(svg("text", { x: 66, y: 74, class: "face-letter", fill: colour, "text-anchor": "middle", text: rank }));
    root.append(suitUse(suit, 52, 84, 28, colour));
  } else {
    root.append(suitUse(suit, 40, 52, 50, colour));
  }
  return root;
}

/** A small card for a meld on the table (viewBox 60x84); a wild shows the slot it stands in. */
export function miniCard(token, wilds) {
  const { card, slot } = placed(token);
  const colour = colourOf(card);
  const root = svg("svg", { viewBox: "0 0 60 84", class: "mini-face", focusable: "false", "aria-hidden": "true" });
  root.append(svg("rect", { x: 1, y: 1, width: 58, height: 82, rx: 6, class: "card-bg" }));
  if (isJoker(card)) {
    root.append(svg("rect", { x: 3, y: 3, width: 54, height: 78, rx: 5, class: "joker-tint" }));
    root.append(svg("use", { href: "#star", x: 3, y: 5, width: 24, height: 24, fill: PURPLE }));
    root.append(svg("text", { x: 15, y: 44, class: "mini-joker", fill: PURPLE, "text-anchor": "middle", text: "JK" }));
  } else {
    const text = rankLabel(rankOf(card));
    root.append(
      svg("text", {
        x: 4,
        y: 23,
        class: "mini-rank",
        fill: colour,
        "font-size": text.length > 1 ? 19 : 23,
        "letter-spacing": text.length > 1 ? -1.5 : 0,
        text,
      }),
    );
    root.append(suitUse(suitOf(card), 4, 27, 19, colour));
    if (isWildKind(card, wilds)) root.append(svg("use", { href: "#star", x: 36, y: 4, width: 18, height: 18, fill: PURPLE }));
  }
  if (slot) {
    const slotColour = colourOf(slot);
    root.append(svg("rect", { x: 3, y: 52, width: 30, height: 29, rx: 4, class: "slot-tag" }));
    const text = rankLabel(rankOf(slot));
    root.append(
      svg("text", { x: 5, y: 67, class: "slot-rank", fill: slotColour, "font-size": text.length > 1 ? 12 : 14, text: "=" + text }),
    );
    root.append(suitUse(suitOf(slot), 12, 68, 12, slotColour));
  }
  return root;
}

/** The back of a card (the stock, the packets, other hands). */
export function cardBack(className = "card-back") {
  const root = svg("svg", { viewBox: "0 0 60 84", class: className, focusable: "false", "aria-hidden": "true" });
  root.append(svg("rect", { x: 1, y: 1, width: 58, height: 82, rx: 6, class: "back-bg" }));
  root.append(svg("rect", { x: 6, y: 6, width: 48, height: 72, rx: 4, class: "back-pattern" }));
  return root;
}

/** The words for a card token in a meld, for screen readers: "joker as 6 of hearts". */
export function tokenName(token) {
  const { card, slot } = placed(token);
  return slot ? t("card.as_slot", { card: cardName(card), slot: cardName(slot) }) : cardName(card);
}
