"""A table's audience (server/audience.py): each client's bounded queue, the fan-out, and who is away."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

from biriba.server.audience import FELL_BEHIND, WATCHERS_LISTED, Audience, Client, Limits
from biriba.server.store import SeatInfo

DEFAULT = Limits()


def client(seat: int | None = None, limits: Limits = DEFAULT, sent: int = 0) -> tuple[Client, list[int]]:
    """A client whose connection's cuts are kept (their close codes)."""
    cuts: list[int] = []
    return Client(seat, sent, limits=limits, cut=lambda code, reason: cuts.append(code)), cuts


def test_a_client_past_its_queues_messages_is_cut_off_and_told_nothing_more() -> None:
    slow, cuts = client(limits=Limits(messages=3))
    for n in range(3):
        slow.post(f'{{"n": {n}}}')
    assert cuts == [] and len(slow.waiting) == 3
    slow.post('{"n": 3}')
    assert cuts == [FELL_BEHIND] and slow.gone and not slow.waiting and slow.bytes == 0
    slow.post('{"n": 4}')
    assert cuts == [FELL_BEHIND] and not slow.waiting  # cut once, and nothing queued after


def test_a_client_past_its_queues_bytes_is_cut_off() -> None:
    slow, cuts = client(limits=Limits(bytes=100))
    slow.post("x" * 60)
    assert cuts == []
    slow.post("x" * 60)
    assert cuts == [FELL_BEHIND]


def test_a_client_whose_oldest_message_waited_too_long_is_cut_off() -> None:
    slow, cuts = client(limits=Limits(seconds=0.05))
    slow.post("{}")
    time.sleep(0.06)
    assert cuts == []  # nothing checks the clock between messages: the writer's own timeout covers a stall
    slow.post("{}")
    assert cuts == [FELL_BEHIND]


def test_the_writer_takes_the_messages_in_order_and_ends_when_the_client_is_gone() -> None:
    async def main() -> list[str | None]:
        reader, _ = client()
        got: list[str | None] = []

        async def write() -> None:
            while (text := await reader.next()) is not None:
                got.append(text)
            got.append(None)

        writer = asyncio.create_task(write())
        for n in range(3):
            reader.post(str(n))
            await asyncio.sleep(0)
        await asyncio.sleep(0.01)
        reader.close(1000, "bye")
        await asyncio.wait_for(writer, 1)
        return got

    assert asyncio.run(main()) == ["0", "1", "2", None]


def test_one_message_is_made_and_encoded_once_for_all_who_see_the_same() -> None:
    """Every watcher told up to the same event gets the same text; a seat gets its own; a client that asked to
    be told what is the same by name, and was told the table's info as it stands, is told it is the same."""
    audience = Audience()
    watchers = [client(None, sent=5)[0] for _ in range(50)]
    late = client(None, sent=2)[0]
    seated = client(0, sent=5)[0]
    lean = client(None, sent=5)[0]
    lean.same, lean.info_told = True, 3
    for each in [*watchers, late, seated, lean]:
        audience.add(each)
    made: list[tuple[int | None, int, bool]] = []

    def message_for(seat: int | None, since: int, same: bool) -> dict[str, Any]:
        made.append((seat, since, same))
        return {"type": "state", "seat": seat, "since": since, "same": same}

    audience.tell(message_for, 7, 3)
    assert sorted(made, key=str) == sorted(
        [(None, 5, False), (None, 2, False), (0, 5, False), (None, 5, True)], key=str
    )
    assert len({id(w.waiting[0][0]) for w in watchers}) == 1  # one string, shared
    assert json.loads(late.waiting[0][0]) == {"type": "state", "seat": None, "since": 2, "same": False}
    assert all(c.sent == 7 and c.info_told == 3 for c in [*watchers, late, seated, lean])
    audience.tell(message_for, 8, 4)  # the info changed: the lean client is told it whole
    assert json.loads(lean.waiting[-1][0])["same"] is False


def test_the_watchers_listed_are_capped_and_all_of_them_counted() -> None:
    audience = Audience()
    for n in range(WATCHERS_LISTED + 5):
        watcher = Client(None, name=f"w{n}")
        audience.add(watcher)
    audience.heard("other-node", {"seats": [], "watchers": ["far"], "watching": 40})
    assert len(audience.watcher_names()) == WATCHERS_LISTED
    assert audience.watching() == WATCHERS_LISTED + 5 + 40
    told = audience.here()
    assert len(told["watchers"]) == WATCHERS_LISTED and told["watching"] == WATCHERS_LISTED + 5


def test_who_is_away_since_when() -> None:
    seats = [SeatInfo("person", token_hash="a"), SeatInfo("person", token_hash="b"), SeatInfo("bot", "greedy")]
    audience = Audience()
    audience.add(Client(0))
    audience.heard("other-node", {"seats": [1], "watchers": [], "watching": 0})
    audience.reckon(seats)
    assert sorted(audience.connected_since) == [0, 1] and audience.absent_since == {}
    audience.heard("other-node", {"seats": [], "watchers": [], "watching": 0})  # its client left
    audience.reckon(seats)
    assert sorted(audience.connected_since) == [0] and list(audience.absent_since) == [1]
    audience.seat_gone(1)
    assert audience.absent_since == {}
