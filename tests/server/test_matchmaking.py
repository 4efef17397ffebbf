"""The rated queue's matcher (server/ratings/matchmaking.py): who sits together."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from server.ratings.matchmaking import (
    BASE_GAP,
    MAX_GAP,
    QueueEntry,
    allowed_gap,
    closest_level,
    match,
)

AI = {"easy": 1200, "normal": 1500, "hard": 1750}
WAIT = 10.0
NOW = 1000.0


def entry(i: int, rating: int, waited: float = 0.0, **kw: object) -> QueueEntry:
    return QueueEntry(
        player_id=f"p{i}", key=f"a{i}", name=f"n{i}", rating=rating, queued_at=NOW - waited, **kw
    )  # type: ignore[arg-type]


@st.composite
def queues(draw: st.DrawFn) -> list[QueueEntry]:
    n = draw(st.integers(0, 40))
    out = []
    for i in range(n):
        keys = st.integers(0, max(0, n - 1)).map(lambda j: f"a{j}")
        blocked = draw(st.frozensets(keys, max_size=3))
        out.append(
            entry(
                i,
                draw(st.integers(700, 2500)),
                draw(st.floats(0, 30)),
                bot=draw(st.booleans()),
                with_bots=draw(st.booleans()),
                blocked=blocked,
            )
        )
    return out


@settings(max_examples=300, deadline=None)
@given(queues(), st.sampled_from([2, 3, 4]))
def test_matches_respect_seats_gap_blocks_and_bots(entries: list[QueueEntry], seats: int) -> None:
    tables = match(entries, seats, NOW, WAIT, AI)
    seen: list[str] = []
    for table in tables:
        people = table.players
        seen.extend(p.player_id for p in people)
        assert len(people) + table.ai_seats == seats
        assert (table.ai_level is None) == (table.ai_seats == 0)
        for p in people:  # within everyone's own gap
            assert table.people_gap <= allowed_gap(p.waited(NOW))
        for a in people:
            for b in people:
                if a is not b:
                    assert a.key not in b.blocked
                    if a.bot:
                        assert b.bot or b.with_bots
        if table.ai_seats:  # only once its oldest waited the wait
            assert max(p.waited(NOW) for p in people) >= WAIT
            mean = sum(p.rating for p in people) / len(people)
            assert table.ai_level == closest_level(mean, AI)[0]
    assert len(seen) == len(set(seen))  # nobody matched twice
    matched = set(seen)
    for e in entries:  # nobody waits past the wait
        if e.waited(NOW) >= WAIT:
            assert e.player_id in matched


def test_close_ratings_meet_and_far_ones_wait_until_the_gap_widens() -> None:
    a, b = entry(1, 1500), entry(2, 1500 + int(BASE_GAP))
    (table,) = match([a, b], 2, NOW, WAIT, AI)
    assert {p.player_id for p in table.players} == {"p1", "p2"} and table.ai_level is None
    far = entry(3, 1500 + int(BASE_GAP) + 100)
    assert match([a, far], 2, NOW, WAIT, AI) == ()
    # both waited 3 s: each allows BASE_GAP + 3 x GAP_PER_SECOND, wide enough now
    a3, far3 = entry(1, 1500, 3.0), entry(3, 1500 + int(BASE_GAP) + 100, 3.0)
    (table,) = match([a3, far3], 2, NOW, WAIT, AI)
    assert table.gap == BASE_GAP + 100
    assert allowed_gap(10**6) == MAX_GAP


def test_after_the_wait_the_closest_ai_level_fills() -> None:
    strong = entry(1, 1800, WAIT)
    (table,) = match([strong], 2, NOW, WAIT, AI)
    assert table.ai_level == "hard" and table.ai_seats == 1 and table.ai_rating == 1750
    weak_pair = [entry(1, 1100, WAIT), entry(2, 1180, 1.0)]
    (table,) = match(weak_pair, 4, NOW, WAIT, AI)
    assert table.ai_level == "easy" and table.ai_seats == 2
    assert table.ratings == (1100, 1180, 1200, 1200)
    assert match([entry(1, 1800, WAIT - 0.1)], 2, NOW, WAIT, AI) == ()


def test_blocked_players_and_bots_stay_apart() -> None:
    ann = entry(1, 1500, blocked=frozenset({"a2"}))
    bo = entry(2, 1500)
    assert match([ann, bo], 2, NOW, WAIT, AI) == ()
    assert match([bo, ann], 2, NOW, WAIT, AI) == ()  # either way round
    bot = entry(3, 1500, bot=True)
    assert match([bo, bot], 2, NOW, WAIT, AI) == ()
    fan = entry(4, 1500, with_bots=True)
    (table,) = match([bot, fan], 2, NOW, WAIT, AI)
    assert {p.player_id for p in table.players} == {"p3", "p4"}
    # past the wait the one who did not opt in still plays the AI, not the bot
    (table,) = match([entry(2, 1500, WAIT), bot], 2, NOW, WAIT, AI)
    assert [p.player_id for p in table.players] == ["p2"] and table.ai_level == "normal"
