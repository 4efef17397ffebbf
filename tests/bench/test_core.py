"""bench.core: CPU per move of a table's core, a short run of every game."""

from __future__ import annotations

import json

import pytest

from bench import core
from engine.registry import GAMES


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_a_short_run_of_every_game_reports_cpu_per_move(
    game_id: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(core, "WARM_UP", 20)
    assert core.main(["--game", game_id, "--moves", "150"]) == 0
    report = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert report["game"] == game_id and report["moves"] == 150
    assert report["us_per_move"] > 0 and "ratio" not in report
