"""Any terminal from 40 columns up lays the table out cleanly: lines no wider than the
screen, counted in visible characters, never broken inside a colour code (issue 53: at
60 columns the hand broke between ``6C`` and its colour's reset)."""

from __future__ import annotations

import io
import itertools
import re

import pytest

from client_cli import terminal
from client_cli.render import RENDERERS, Seats
from client_cli.style import ANSI, Style, visible_len
from client_cli.terminal import Screen, fit
from engine.registry import GAMES
from tests.client_cli.test_play import playout

COLOUR = re.compile(r"\x1b\[([0-9;]*)m")


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def balanced(line: str) -> bool:
    """Every colour the line opens is reset on the same line (a colour code split from
    its card leaves one open, or a reset without its opening)."""
    open_ = False
    for code in COLOUR.findall(line):
        if code == "0":
            if not open_:
                return False
            open_ = False
        else:
            open_ = True
    return not open_


def screen_lines(lines: list[str], width: int, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """``lines`` as the play session's screen prints them on a ``width``-column terminal."""
    monkeypatch.setattr(terminal, "terminal_size", lambda: (width, 24))
    out = Tty()
    Screen(out).show(lines)
    return out.getvalue().splitlines()


def words(lines: list[str]) -> list[str]:
    return " ".join(ANSI.sub("", line) for line in lines).split()


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_every_width_from_40_lays_out_cleanly(
    game_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    views = [v for v, _ in playout(game_id, 5) if v.get("legal")][:6]
    for width in range(40, 121, 3):
        render = RENDERERS[game_id](Seats(me=0, names={1: "Annabel", 2: "Bea", 3: "Cy"}))
        render.style = Style(colour=True)
        render.width = width
        for view in views:
            render.seats.me = view["seat"]
            lines = [*render.view_lines(view), *render.moves_lines(view["legal"])]
            shown = screen_lines(lines, width, monkeypatch)
            for line in shown:
                assert visible_len(line) <= width, (width, line)
                assert balanced(line), (width, line)
            assert words(shown) == words(lines)  # nothing lost, no card cut


def test_a_coloured_line_fills_the_screen_before_it_breaks() -> None:
    """Colour codes take no column: a hand is broken where the screen ends, not where
    its bytes would have (textwrap broke a coloured 60-column hand after a few cards)."""
    cards = [f"\x1b[31m{r}H\x1b[0m" for r in "23456789TJQKA"] * 2
    line = "Your hand (26): " + " ".join(cards)
    for width in (40, 60, 80):
        shown = fit(line, width)
        for a, b in itertools.pairwise(shown):
            assert visible_len(a) + 1 + visible_len(b.split()[0]) > width  # it was full
        assert all(visible_len(x) <= width and balanced(x) for x in shown)
