"""Duplicate sets (server.duplicate.boards): seeds, windows, validation."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest

from protocol.errors import ErrorCode
from server.duplicate.boards import SeedKey, ai_rng, daily_set, on_demand_set
from server.duplicate.errors import DuplicateError

NOW = datetime(2026, 12, 7, 12, 0, tzinfo=UTC)


def test_seeds_depend_on_the_secret_set_and_board() -> None:
    key = SeedKey(b"s" * 32)
    seeds = {key.board_seed("daily-scopa-20261207", b) for b in range(1, 9)}
    assert len(seeds) == 8
    assert all(0 <= s < 2**63 for s in seeds)
    assert key.board_seed("x", 1) == SeedKey(b"s" * 32).board_seed("x", 1)
    assert key.board_seed("x", 1) != SeedKey(b"t" * 32).board_seed("x", 1)
    assert "s" * 16 not in repr(key)
    with pytest.raises(ValueError):
        SeedKey(b"short")


def test_ai_generators_are_per_board_and_seat() -> None:
    assert ai_rng(7, 1).random() == ai_rng(7, 1).random()
    assert ai_rng(7, 1).random() != ai_rng(7, 2).random()
    assert ai_rng(7, 1).random() != ai_rng(8, 1).random()


def test_a_daily_set_opens_and_closes_at_utc_midnight() -> None:
    s = daily_set("doudizhu", date(2026, 12, 7))
    assert s.set_id == "daily-doudizhu-20261207"
    assert s.opens_at == datetime(2026, 12, 7, tzinfo=UTC)
    assert s.closes_at == datetime(2026, 12, 8, tzinfo=UTC)
    assert s.is_open(NOW) and not s.seeds_shown(NOW)
    assert not s.is_open(s.closes_at) and s.seeds_shown(s.closes_at)
    assert s.options() == {}
    assert daily_set("scopa", date(2026, 12, 7)).options() == {"deals": 1}


def test_an_on_demand_set_and_its_refusals() -> None:
    s = on_demand_set("schafkopf", "hard", 4, timedelta(hours=2), "a_ann", NOW, seat=3)
    assert s.set_id.startswith("set-") and s.closes_at == NOW + timedelta(hours=2)
    with pytest.raises(DuplicateError) as bad:
        s.check_open(NOW + timedelta(hours=3))
    assert bad.value.code is ErrorCode.SET_CLOSED
    cases: list[dict[str, object]] = [
        dict(game="chess"),
        dict(level="godlike"),
        dict(boards=0),
        dict(boards=33),
        dict(seat=4),
        dict(duration=timedelta(minutes=1)),
        dict(duration=timedelta(days=8)),
    ]
    for case in cases:
        args: dict[str, object] = {
            "game": "schafkopf",
            "level": "normal",
            "boards": 4,
            "duration": timedelta(hours=1),
            "seat": 0,
        }
        args.update(case)
        with pytest.raises(DuplicateError) as refused:
            on_demand_set(creator="a_ann", now=NOW, **args)  # type: ignore[arg-type]
        expected = ErrorCode.UNKNOWN_GAME if "game" in case else ErrorCode.BAD_OPTIONS
        assert refused.value.code is expected, case
