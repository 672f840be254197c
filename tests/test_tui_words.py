"""The terminal game's words: what the screen says about a move, a meld, a hand."""

from __future__ import annotations

from types import SimpleNamespace

from rich.text import Text

from biriba.cards import parse_card, parse_cards
from biriba.melds import parse_meld
from biriba.rules import CLASSIC, PRESETS
from biriba.tui.words import HELP_WIDTH, Words, help_text
from helpers import play, position


def test_a_pickup_by_the_last_discard_says_what_the_screen_shows() -> None:
    deal = position({1: "9C"}, melds=([], ["3S 4S 5S 6S 7S 8S 9S"]), phase="play", to_move=1)
    outcome = deal.apply(deal.parse_action("discard 9C"))
    line = Words(CLASSIC).describe(deal.view_for(0), outcome.seen_by(0)).plain
    assert line.startswith("East: discards 9")
    assert "that was the last card" in line and "reserve (11 cards) to play next turn" in line
    assert deal.view_for(0).sizes[1] == 11  # what the screen shows for East


def test_a_pickup_by_melding_plays_on() -> None:
    deal = position({0: "TS"}, melds=(["3S 4S 5S 6S 7S 8S 9S"], []), phase="play")
    outcome = deal.apply(deal.parse_action("add 1 TS"))
    line = Words(CLASSIC).describe(deal.view_for(0), outcome).plain
    assert "empty your hand and pick up the reserve (11 cards) and play on" in line


def test_compact_runs_keep_their_ends_and_wild() -> None:
    words = Words(CLASSIC, plain=True)
    run = parse_meld("3H 4H 5H JK=6H 7H 8H 9H", CLASSIC)
    assert words.meld(run, compact=True).plain == "3H..9H with JK=6H"  # the wild is within the run, not after it
    ends = parse_meld("JK=3D 4D 5D JK=6D 7D 8D 9D TD JD QD KD 2H=AD", CLASSIC.with_options(["wild_limit=half"]))
    assert words.meld(ends, compact=True).plain == "JK=3D..2H=AD with JK=6D"
    assert words.meld(run).plain == "3H 4H 5H JK=6H 7H 8H 9H"
    assert words.short_state(run) == "dirty 7" and words.meld_state(run) == "dirty biriba (run of 7)"


def test_the_hand_is_shown_by_suit_with_the_wilds_last() -> None:
    groups = Words(CLASSIC).hand_groups(parse_cards("KH 2C JK 3S AH 7D"))
    assert [key for key, _ in groups] == ["S", "H", "D", "wild"]
    assert groups[1][1] == parse_cards("AH KH") and groups[-1][1] == [parse_card("2C"), parse_card("JK")]


def test_table_points_count_cards_and_bonuses_so_far() -> None:
    deal = position(melds=(["3S 4S 5S 6S 7S 8S 9S", "KH KD KC"], []))
    assert Words(CLASSIC).table_points(deal.view_for(0), 0) == 45 + 200 + 30


def test_help_lists_the_bot_kinds_and_the_keys() -> None:
    text = help_text(keys=True)
    assert "greedy" in text and "random" in text and "space  pick a card" in text and "h      hint" in text
    lines = help_text(keys=False)
    assert "space  pick" not in lines and "table   the whole table" in lines
    for keys in (True, False):  # no line the full screen's dialog would wrap at 80 columns
        assert max(len(line) for line in Text.from_markup(help_text(keys)).plain.splitlines()) <= HELP_WIDTH


def test_fresh_cards_are_marked_in_plain_text() -> None:
    deal = position({0: "9C QD"}, phase="draw")
    play(deal, "draw")
    assert Words(CLASSIC, plain=True).card(parse_card("QD"), fresh=True).plain == "*QD"


def test_the_engines_words_show_cards_as_the_table_does() -> None:
    text = "R16: you took the single card KH from the pile; meld 3H 4H JK=5H; add 2 TC; R15"
    assert (
        Words(CLASSIC).told(text) == "R16: you took the single card K♥ from the pile; meld 3♥ 4♥ JK=5♥; add 2 T♣; R15"
    )
    assert Words(CLASSIC, plain=True).told(text) == text  # plain ASCII keeps the notation


def test_the_R16_reminder_goes_once_the_single_card_has_left_the_hand() -> None:
    deal = position({0: "7H 8H 9C QD"}, phase="draw", discard="9H", melds=([], []))
    play(deal, "take")
    reminder = Words(CLASSIC).kept_single(deal.view_for(0)).plain
    assert reminder == "  you may not discard 9♥ this turn (R16)"
    play(deal, "meld 7H 8H 9H")
    assert Words(CLASSIC).kept_single(deal.view_for(0)).plain == ""  # 9H is on the table now


def test_each_deal_says_where_you_sit_and_seats_have_initials_where_six_share_a_line() -> None:
    rules = CLASSIC.replace(seats=6, partnerships=False)
    deal = position(rules=rules, phase="draw", to_move=2, dealer=1)
    words = Words(rules)
    assert words.deal_start(deal.view_for(0), 1) == "Deal 1: you sit South; South-east deals; North-east plays first."
    assert [words.initials(s) for s in range(6)] == ["You", "SE", "NE", "N", "NW", "SW"]
    assert (
        words.match_line([0] * 6, compact=True, short=True) == "You 0  SE 0  NE 0  N 0  NW 0  SW 0 (first above 5000)"
    )
    pairs = Words(CLASSIC.replace(seats=6))
    assert pairs.team_label(1, short=True) == "SE&NW"


def test_D36_the_last_idle_round_is_announced_with_the_turns_left() -> None:
    rules = CLASSIC.at_table()  # two idle rounds end a deal at a table with people
    deal = position({0: "9C QD"}, phase="draw", stock=0, discard="KH", rules=rules)
    words = Words(rules)
    warnings = []
    for _ in range(7):
        play(deal, "take")
        play(deal, next(str(a) for a in deal.legal_actions() if a.kind == "discard"))
        warnings.append(words.idle_warning(deal.view_for(0)))
    assert warnings[:3] == ["", "", ""]  # a whole round is left
    assert warnings[3] == "Stock empty, no meld or add for 4 turns: 4 more such turns end the deal (D36)."
    assert warnings[6].endswith("7 turns: 1 more such turn ends the deal (D36).")


def test_changed_rules_are_said_so_not_starred() -> None:
    assert Words(CLASSIC).rules_name() == "classic"
    assert Words(CLASSIC.with_options(["target=3000"])).rules_name() == "classic (changed)"
    # the idle-round guard every table with people plays under (D36) is nobody's change
    assert Words(CLASSIC.at_table()).rules_name() == "classic"
    assert Words(PRESETS["atout"].at_table()).rules_name() == "atout"
    assert Words(CLASSIC.with_options(["target=3000"]).at_table()).rules_name() == "classic (changed)"
    assert Words(CLASSIC.with_options(["idle_rounds=3"]).at_table(["idle_rounds"])).rules_name() == "classic (changed)"
    assert Words(CLASSIC.with_options(["idle_rounds=0"]).at_table(["idle_rounds"])).rules_name() == "classic"


def test_the_cards_found_past_the_cut_are_written_as_every_card() -> None:
    rules = next(r for r in PRESETS.values() if r.cut_bonus)
    view = SimpleNamespace(cut=0, rules=rules, dealer=1, cut_wilds=[parse_card("2D"), parse_card("JK")])
    assert "found 2♦ JK past the cut" in Words(rules).cut(view)  # type: ignore[arg-type]
    assert "found 2D JK past the cut" in Words(rules, plain=True).cut(view)  # type: ignore[arg-type]
