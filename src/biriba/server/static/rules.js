// The rules a table plays with, as plain data, and what the page derives from
// them: the teams, what a meld on the table is (run, set, clean or dirty
// biriba), what it is worth.  The server's /api/rules gives each preset's
// options as text ("200/100", "true", "5000"); a table's rules object gives
// JSON values ({"clean": 200, "dirty": 100}); both are read here.

import { isJoker, isWildKind, placed, rankOf, suitOf, RANKS } from "./cards.js";

const INTS = [
  "seats", "packs", "jokers", "hand_size", "packet_size", "dealer_step", "min_meld", "biriba_size",
  "reserve_biribas", "closure_biribas", "long_run_size", "going_out_bonus", "no_reserve_penalty", "target",
];
const BOOLS = [
  "partnerships", "upcard_redeal", "bottom_wilds", "twos_wild", "sets", "wild_melds", "closure_run_and_set",
  "meld_out", "single_take_closure",
];
const BONUSES = [
  "run_bonus", "full_run_bonus", "long_run_bonus", "trump_run_bonus", "trump_full_run_bonus", "set_bonus",
  "ace_set_bonus", "wild_meld_bonus",
];

/** The classic profile, used when nothing better is known. */
export const CLASSIC = {
  name: "classic", seats: 4, partnerships: true, twos_wild: true, sets: true, min_meld: 3, biriba_size: 7,
  set_biribas: "all", wild_melds: false, trump: "none", hand_size: 11, packet_size: 11,
  card_values: { joker: 20, ace: 15, two: 10, high: 10, low: 5 },
  run_bonus: { clean: 200, dirty: 100, in_hand: null }, full_run_bonus: { clean: 1000, dirty: 500, in_hand: null },
  long_run_bonus: null, long_run_size: 11, trump_run_bonus: null, trump_full_run_bonus: null,
  set_bonus: { clean: 300, dirty: 150, in_hand: null }, ace_set_bonus: null,
  wild_meld_bonus: { clean: 750, dirty: 750, in_hand: [1000, 1000] }, opening_minimums: [], cut_bonus: [],
  target: 5000, target_rule: "exceed", going_out_bonus: 100, no_reserve_penalty: 100,
};

function isNone(value) {
  return value === null || value === undefined || (typeof value === "string" && ["none", "null", "-", ""].includes(value.toLowerCase()));
}

function readBonus(value) {
  if (isNone(value)) return null;
  if (typeof value === "object") {
    return { clean: Number(value.clean), dirty: Number(value.dirty), in_hand: value.in_hand ? value.in_hand.map(Number) : null };
  }
  const parts = String(value).split("/").map(Number);
  return { clean: parts[0], dirty: parts[1], in_hand: parts.length === 4 ? [parts[2], parts[3]] : null };
}

function readValues(value) {
  if (value && typeof value === "object") return { ...CLASSIC.card_values, ...value };
  const [joker, ace, two, high, low] = String(value).split(",").map(Number);
  return { joker, ace, two, high, low };
}

function readMinimums(value) {
  if (isNone(value)) return [];
  if (Array.isArray(value)) return value.map((item) => item.map(Number));
  return String(value)
    .split(",")
    .filter(Boolean)
    .map((item) => {
      const [span, minimum] = item.split(":");
      const [low, high] = span.split("-");
      return [Number(low), Number(high), Number(minimum)];
    });
}

/**
 * A value written as a Python literal ("{'clean': 200, 'in_hand': None}",
 * "[100, 50]", "(1000, 1000)") read as JSON data; other text is left as it is.
 */
function literal(value) {
  if (typeof value !== "string" || !/^[[{(]/.test(value.trim())) return value;
  const json = value
    .replace(/'/g, '"')
    .replace(/\bNone\b/g, "null")
    .replace(/\bTrue\b/g, "true")
    .replace(/\bFalse\b/g, "false")
    .replace(/\(/g, "[")
    .replace(/\)/g, "]");
  try {
    return JSON.parse(json);
  } catch {
    return value;
  }
}

/** Options as data, whatever form they came in. */
export function normalizeOptions(raw) {
  const out = {};
  for (const [key, given] of Object.entries(raw || {})) {
    const value = literal(given);
    if (INTS.includes(key)) out[key] = Number(value);
    else if (key === "inactive_reserve_penalty") out[key] = isNone(value) ? null : Number(value);
    else if (BOOLS.includes(key)) out[key] = value === true || value === "true";
    else if (BONUSES.includes(key)) out[key] = readBonus(value);
    else if (key === "card_values") out[key] = readValues(value);
    else if (key === "opening_minimums") out[key] = readMinimums(value);
    else if (key === "cut_bonus") out[key] = isNone(value) ? [] : Array.isArray(value) ? value.map(Number) : String(value).split(",").map(Number);
    else out[key] = value;
  }
  return out;
}

/**
 * The full rules of a table from its rules data (a preset's name, or an
 * object of options over a preset) and the presets of /api/rules.
 */
export function resolveRules(data, presets) {
  const presetOptions = (name) => {
    const preset = presets && presets[name];
    return preset ? normalizeOptions(preset.options) : null;
  };
  if (typeof data === "string") {
    const base = presetOptions(data.replace(/\*$/, ""));
    return { ...CLASSIC, ...(base || {}), name: data };
  }
  if (data && typeof data === "object") {
    const name = String(data.name || "classic");
    const baseName = data.base || name.replace(/\*$/, "");
    const base = presetOptions(baseName) || presetOptions("classic") || {};
    const { name: _name, base: _base, ...rest } = data;
    return { ...CLASSIC, ...base, ...normalizeOptions(rest), name };
  }
  return { ...CLASSIC };
}

/** The seats of each team: partners opposite, or every player alone. */
export function teamsOf(rules) {
  const seats = rules.seats || 4;
  if (rules.partnerships) {
    const half = seats / 2;
    return Array.from({ length: half }, (_, s) => [s, s + half]);
  }
  return Array.from({ length: seats }, (_, s) => [s]);
}

/** What a meld on the table is, from its cards as the view writes them (JK=6H: a wild in its slot). */
export function analyzeMeld(tokens, rules) {
  const cards = tokens.map(placed);
  const withSlot = cards.filter((c) => c.slot);
  const naturals = cards.filter((c) => !c.slot && !isWildKind(c.card, rules));
  let kind;
  let wilds;
  let rank = null;
  let suit = null;
  if (!naturals.length && !withSlot.length) {
    kind = "wild";
    wilds = 0;
  } else if (!withSlot.length && naturals.length && new Set(naturals.map((c) => rankOf(c.card))).size === 1 && rules.sets !== false) {
    kind = "set";
    rank = rankOf(naturals[0].card);
    wilds = cards.length - naturals.length;
  } else {
    kind = "run";
    wilds = withSlot.length;
    const first = naturals[0] || withSlot[0];
    suit = first.slot ? suitOf(first.slot) : suitOf(first.card);
  }
  const size = cards.length;
  const clean = wilds === 0;
  let biriba = size >= (rules.biriba_size || 7);
  if (biriba && kind === "set") {
    const which = rules.set_biribas || "all";
    biriba = which === "all" || (which === "aces" && rank === "A");
  }
  return { kind, size, clean, wilds, rank, suit, biriba, cards };
}

function bonusOf(bonus, clean, inHand) {
  if (!bonus) return 0;
  if (inHand && bonus.in_hand) return clean ? bonus.in_hand[0] : bonus.in_hand[1];
  return clean ? bonus.clean : bonus.dirty;
}

/** A meld's bonus by its state now (R26), as the engine's meld_bonus. */
export function meldBonus(info, rules, trump, inHand) {
  if (!info.biriba) return 0;
  if (info.kind === "wild") return bonusOf(rules.wild_meld_bonus, true, inHand);
  if (info.kind === "set") {
    const bonus = rules.ace_set_bonus && info.rank === "A" ? rules.ace_set_bonus : rules.set_bonus;
    return bonusOf(bonus, info.clean, inHand);
  }
  const trumps = trump && info.suit === trump;
  const full = trumps && rules.trump_full_run_bonus ? rules.trump_full_run_bonus : rules.full_run_bonus;
  if (info.size === 13 && full) return bonusOf(full, info.clean, inHand);
  const long = rules.long_run_bonus && info.size >= rules.long_run_size;
  let value = bonusOf((long ? rules.long_run_bonus : null) || rules.run_bonus, info.clean, inHand);
  if (trumps && rules.trump_run_bonus) value = Math.max(value, bonusOf(rules.trump_run_bonus, info.clean, inHand));
  return value;
}

/** A card's points (R24). */
export function cardValue(code, rules) {
  const values = rules.card_values || CLASSIC.card_values;
  if (isJoker(code)) return values.joker;
  const rank = RANKS.indexOf(rankOf(code));
  if (rank === 0) return values.ace;
  if (rank === 1) return values.two;
  return rank >= 7 ? values.high : values.low;
}

export function meldValue(info, rules) {
  return info.cards.reduce((sum, c) => sum + cardValue(c.card, rules), 0);
}

/** The least a team's first melding must be worth at this total (vulnerability), or 0. */
export function openingMinimum(rules, total) {
  for (const [low, high, minimum] of rules.opening_minimums || []) {
    if (low <= total && total <= high) return minimum;
  }
  return 0;
}
