"""``cardavia rules`` and ``cardavia games``: the rules ship with the client; no server needed."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from client_cli.main import main
from client_cli.rulebook import TOPICS, rules_text
from engine.registry import GAMES

ROOT = Path(__file__).resolve().parents[2]
OUTSIDE = "../" + "shared"  # spelled in two parts so this file does not match itself


@pytest.mark.parametrize("topic", [*TOPICS, None])
def test_rules_print_for_every_topic(topic: str | None, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules"] + ([topic] if topic else [])) == 0
    out = capsys.readouterr().out
    assert out.startswith("# ") and len(out) > 500


def test_every_game_has_rules_and_docs_link_to_the_shipped_files() -> None:
    assert set(GAMES) <= set(TOPICS)
    for name in (*TOPICS.values(), "README.md"):
        doc = ROOT / "docs" / "rules" / name
        assert doc.read_text(encoding="utf-8") == rules_text(name.removesuffix(".md"))


def test_unknown_topic_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules", "poker"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "scopa, cicera, doudizhu, schafkopf" in err


def test_games_lists_every_game_with_its_options(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["games"]) == 0
    out = capsys.readouterr().out
    for game_id in GAMES:
        assert f"{game_id}: " in out and f"cardavia rules {game_id}" in out
    assert "-o target=VALUE" in out and "-o deals=VALUE" in out and "salzburg" in out


def test_nothing_in_the_project_points_outside_its_tree() -> None:
    tracked = subprocess.run(
        ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    for path in tracked:
        file = ROOT / path
        if file.is_symlink():
            assert file.resolve().is_relative_to(ROOT), path
            continue
        if file.suffix not in (".md", ".py", ".toml", ".sh", ".yml", ".cfg", ".txt", ""):
            continue
        text = file.read_text(encoding="utf-8", errors="replace")
        assert OUTSIDE not in text, path
