"""Building positions for rule tests: name a few hands and melds, the rest of the deck fills in."""

from __future__ import annotations

import random
import signal
from typing import Any

from biriba.cards import NAMES, deck_counts, parse_cards
from biriba.deal import Deal
from biriba.melds import parse_meld
from biriba.records import position_from_json
from biriba.rules import CLASSIC, Rules


def position(
    hands: dict[int, str] | None = None,
    melds: tuple[list[str], ...] = ([], []),
    discard: str = "",
    to_move: int = 0,
    phase: str = "play",
    reserves: tuple[Any, ...] | None = None,
    took_single: str | None = None,
    stock: int | None = None,
    packets: list[str | None] | None = None,
    passes: int = 0,
    dealer: int | None = None,
    rules: Rules = CLASSIC,
    seed: int = 0,
    **extra: Any,
) -> Deal:
    """A deal where the named hands, melds and pile are as given.

    Unnamed hands get 11 cards from what is left, packets not taken get 11
    each (or the cards named in ``packets``), and the stock gets ``stock``
    cards (default: the rest); anything still left over is laid down in the
    discard pile's bottom.  ``extra`` adds position fields (``trump``, ``match_scores``...).
    """
    if reserves is None:
        reserves = (None,) * len(rules.teams)
    hands = hands or {}
    left = deck_counts(rules.packs, rules.jokers)

    def take(cards: list[int]) -> list[int]:
        for c in cards:
            left[c] -= 1
            assert left[c] >= 0, f"too many {NAMES[c]}"
        return cards

    named = {s: take(parse_cards(h)) for s, h in hands.items()}
    fixed = [take(parse_cards(p)) if p else None for p in packets or []]
    for team in melds:
        for m in team:
            take(list(parse_meld(m, rules).cards()))
    pile = take(parse_cards(discard))
    pool = [c for c in range(len(left)) for _ in range(left[c])]
    random.Random(seed).shuffle(pool)
    all_hands = []
    for s in range(rules.seats):
        if s in named:
            all_hands.append(named[s])
        else:
            all_hands.append(pool[: rules.hand_size])
            del pool[: rules.hand_size]
    taken = sum(r is not None for r in reserves)
    packet_cards = []
    for i in range(rules.packets - taken):
        chosen = fixed[i] if i < len(fixed) else None
        if chosen is not None:
            packet_cards.append(chosen)
        else:
            packet_cards.append(pool[: rules.packet_size])
            del pool[: rules.packet_size]
    if stock is None:
        stock_cards, pool = pool, []
    else:
        stock_cards, pool = pool[:stock], pool[stock:]
    data = {
        "format": "biriba-position/1",
        "rules": rules.to_json(),
        "dealer": (to_move - 1) % rules.seats if dealer is None else dealer,
        "to_move": to_move,
        "phase": phase,
        "hands": [[NAMES[c] for c in sorted(h)] for h in all_hands],
        "melds": [[m.split() for m in team] for team in melds] + [[]] * (len(rules.teams) - len(melds)),
        "discard": [NAMES[c] for c in pool + pile],
        "stock": [NAMES[c] for c in stock_cards],
        "packets": [[NAMES[c] for c in p] for p in packet_cards],
        "reserves": [None if r is None else {"seat": r[0], "active": r[1]} for r in reserves],
        "took_single": took_single,
        "passes": passes,
        **extra,
    }
    return position_from_json(data)


def texts(deal: Deal) -> list[str]:
    """The mover's legal actions as sorted canonical strings."""
    return sorted(str(a) for a in deal.legal_actions())


def play(deal: Deal, *actions: str) -> Deal:
    for text in actions:
        deal.apply(deal.parse_action(text))
    return deal


def mid_deal(rules: Rules, seed: int, turns: int = 36) -> Any:
    """A terminal game's session some turns into a deal, at your turn, every seat (yours too) played by greedy."""
    from biriba.bots import make_bot
    from biriba.tui.session import Session

    session = Session.new(rules, ["greedy"], seed=seed)
    you = make_bot("greedy", seed)
    session.start_deal()
    while True:
        deal = session.deal
        assert deal is not None
        if deal.is_over:
            session.start_deal()
        elif session.your_turn and deal.turn >= turns:
            return session
        elif session.your_turn:
            session.play(you.choose(session.view(), session.legal()))
        else:
            session.step()


def default_interrupt() -> None:
    """A child's Ctrl-C as a terminal gives it (``preexec_fn``): in the full parallel run the test process may
    hold SIGINT ignored (a library's doing), and a child started so ignores it too (POSIX), so that a SIGINT
    sent to it would do nothing."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
