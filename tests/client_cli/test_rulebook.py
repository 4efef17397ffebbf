"""``cardavia rules`` and ``cardavia games``: the rules ship with the client; no server needed."""

from __future__ import annotations

import io
import shlex
import subprocess
from pathlib import Path

import pytest

from client_cli.main import main
from client_cli.markdown import page, render
from client_cli.rulebook import TOPICS, rules_lines, rules_text
from client_cli.style import Style, visible_len
from engine.registry import GAMES

ROOT = Path(__file__).resolve().parents[2]
OUTSIDE = "../" + "shared"  # spelled in two parts so this file does not match itself


@pytest.mark.parametrize("topic", [*TOPICS, None])
def test_rules_print_for_every_topic(topic: str | None, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules"] + ([topic] if topic else [])) == 0
    out = capsys.readouterr().out
    title, underline, *_ = out.splitlines()
    assert underline == "=" * len(title) and len(out) > 500  # not a pipe: no pager, no colour


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


@pytest.mark.parametrize("topic", [*TOPICS, None])
@pytest.mark.parametrize("width", [40, 80, 120])
def test_rules_are_rendered_for_the_terminal(topic: str | None, width: int) -> None:
    """No Markdown shows (**, backticks, table pipes), other rule files are named by the
    command that prints them, and every line fits the width."""
    for colour in (False, True):
        lines = rules_lines(topic, width, Style(colour))
        text = "\n".join(lines)
        assert "**" not in text and "`" not in text and "|" not in text, text
        assert ".md" not in text and "see cards" not in text
        assert all(visible_len(line) <= width for line in lines), [
            x for x in lines if visible_len(x) > width
        ]
        if topic in GAMES:
            assert "'cardavia rules cards'" in text
    if topic is None:
        assert "'cardavia rules scopa'" in text


def test_markdown_blocks() -> None:
    md = (
        "# Title\n\nSome **bold** and `7D` text, see [cards.md](cards.md) or\n"
        "[the index](README.md) and [elsewhere](https://example.org).\n\n"
        "## Part\n\n- one\n  more\n- two\n\n1. first\n\n"
        "| a | bb |\n|---|---|\n| 1 | 22 |\n\n```\ncode  kept\n```\n"
    )
    assert render(md, 60, Style(False), ["cards"]) == [
        "Title",
        "=====",
        "",
        "Some bold and 7D text, see 'cardavia rules cards' or the",
        "index ('cardavia rules') and elsewhere",
        "(https://example.org).",
        "",
        "Part",
        "----",
        "",
        "  • one more",
        "  • two",
        "",
        "  1. first",
        "",
        "  a  bb",
        "  -----",
        "  1  22",
        "",
        "    code  kept",
    ]
    coloured = render(md, 60, Style(True), ["cards"])
    assert coloured[0] == "\x1b[1mTITLE\x1b[0m" and "\x1b[1mbold\x1b[0m" in coloured[2]
    table = "| name | what it is |\n|---|---|\n| x | a long cell here |\n"
    narrow = render(table, 20, Style(False), [])
    assert narrow == ["  • x", "      what it is: a", "        long cell", "        here"]


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_long_rules_go_through_the_pager_only_on_a_terminal() -> None:
    paged: list[tuple[str, list[str]]] = []

    def pager(text: str, command: list[str]) -> int:
        paged.append((text, command))
        return 0

    lines = [f"line {i}" for i in range(40)]
    out = Tty()
    page(lines, out, rows=24, pager=pager)
    assert out.getvalue() == "" and paged == [("\n".join(lines) + "\n", paged[0][1])]
    page(lines, Tty(), rows=60, pager=pager)  # fits the screen: printed
    plain = io.StringIO()
    page(lines, plain, rows=24, pager=pager)  # a pipe: printed, never paged
    assert len(paged) == 1 and plain.getvalue().count("line") == 40
    broken = Tty()
    page(lines, broken, rows=24, pager=lambda text, command: 127)  # no pager: printed
    assert broken.getvalue().count("line") == 40


def test_cardavia_rules_pages_in_a_terminal(tmp_path: Path) -> None:
    """In a real pseudo-terminal: $PAGER gets the rendered rules when they are longer
    than the screen; a tall screen gets them printed."""
    import os
    import sys

    import pexpect

    from tests.client_cli.spawn import spawn_cli

    got = tmp_path / "paged.txt"
    script = f"import sys; open({str(got)!r}, 'w').write(sys.stdin.read())"
    pager = f"{sys.executable} -c {shlex.quote(script)}"
    env = {**os.environ, "PAGER": pager, "NO_COLOR": "1", "COLUMNS": "80", "LINES": "24"}
    child = spawn_cli("rules", "schafkopf", rows=24, cols=80, env=env)
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert got.read_text().splitlines() == rules_lines("schafkopf", 80, Style(False))
    got.unlink()
    env = {**env, "LINES": "500"}
    child = spawn_cli("rules", "cards", rows=500, cols=80, env=env)
    child.expect(pexpect.EOF)
    assert "Cards and how to write them" in str(child.before) and not got.exists()
