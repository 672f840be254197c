// A meld as a tile: a short fan of overlapped cards over its number and, as
// room allows, its kind and count or its state in words, a biriba marked clean
// (★, a gold frame) or dirty (☆, a dashed one).  The table's board and the
// replay draw their melds with it; the facts are the engine's (`board`).

import { miniCard, tokenName } from "./cards.js";
import { h } from "./dom.js";
import { t } from "./i18n.js";
import { meldWords } from "./words.js";

/** The meld's facts in words: its state, bonus, what it lacks for a biriba, and whether the picked cards join it. */
export function meldFacts(info, target = false) {
  const toGo = info.to_biriba;
  return [
    info.biriba ? h("span", { class: "biriba-mark" }, info.clean ? "★ " : "☆ ") : null,
    meldWords(info),
    info.bonus ? h("span", { class: "meld-bonus" }, ` +${info.bonus}`) : null,
    toGo > 0 && toGo <= 2 ? h("span", { class: "meld-togo" }, " · " + t("meld.to_go", { n: toGo })) : null,
    target ? h("span", { class: "meld-add" }, " · " + t("meld.tap_to_add")) : null,
  ];
}

/** The tile of meld `number` (1-based) of `team`; `attrs` adds to (or overrides) the tile's own attributes. */
export function meldTile(team, number, tokens, info, wilds, { target = false, flash = false, attrs = {} } = {}) {
  const fan = h("span", { class: "meld-cards", "aria-hidden": "true" }, tokens.map((token) => miniCard(token, wilds)));
  fan.style.setProperty("--n", String(tokens.length)); // the overlap: screens.css fits the fan to the tile
  const kind = `${info.kind}${info.biriba ? (info.clean ? " biriba clean" : " biriba dirty") : ""}`;
  return h(
    "div",
    {
      class: `meld ${kind}${target ? " target" : ""}${flash ? " flash" : ""}`,
      "data-testid": "meld",
      "data-team": team,
      "data-index": number,
      role: "img",
      "aria-label": t("meld.aria", { n: number, state: meldWords(info), cards: tokens.map(tokenName).join(", ") }),
      ...attrs,
    },
    fan,
    h(
      "span",
      { class: "meld-caption", "aria-hidden": "true" },
      h("span", { class: "meld-num" }, String(number)),
      h("span", { class: "meld-short" }, info.biriba ? (info.clean ? "★ " : "☆ ") : "", t(`meld.short_${info.kind}`, { n: info.size })),
      h("span", { class: "meld-state" }, meldFacts(info, target)),
    ),
  );
}
