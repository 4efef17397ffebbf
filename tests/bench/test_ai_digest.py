"""bench/ai_digest.py: a repeatable fingerprint of every AI level's decisions."""

from __future__ import annotations

import json

import pytest

from bench.ai_digest import main
from engine.registry import POLICIES

TINY = ["--deals", "2", "--iterations", "4", "--decisions", "12"]


def _digests(capsys: pytest.CaptureFixture[str], argv: list[str]) -> dict[str, dict[str, str]]:
    assert main(argv) == 0
    report = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    games: dict[str, dict[str, str]] = report["games"]
    return games


def test_same_seeds_give_the_same_digest_for_every_level(
    capsys: pytest.CaptureFixture[str],
) -> None:
    first = _digests(capsys, TINY)
    assert set(first) == set(POLICIES)
    for game_id, levels in first.items():
        assert set(POLICIES[game_id]) <= set(levels)
        assert all(len(d) == 64 for d in levels.values())
        # the levels decide differently, so their digests differ (in a dozen decisions
        # Schafkopf's easy may still play as greedy: it adds its noise in the play only)
        assert len(set(levels.values())) >= len(levels) - 1
    assert _digests(capsys, TINY) == first


def test_the_digest_follows_the_decisions(capsys: pytest.CaptureFixture[str]) -> None:
    base = _digests(capsys, [*TINY, "--games", "scopa"])["scopa"]
    other_seed = _digests(capsys, [*TINY, "--games", "scopa", "--seed", "7"])["scopa"]
    longer = _digests(capsys, [*TINY[:4], "--decisions", "13", "--games", "scopa"])["scopa"]
    for level in POLICIES["scopa"]:
        assert base[level] != other_seed[level]
        assert base[level] != longer[level]


def test_bad_arguments_are_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--games", "chess"])
    with pytest.raises(SystemExit):
        main(["--deals", "0"])
    assert "unknown games: chess" in capsys.readouterr().err
