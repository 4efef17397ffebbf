"""Terminal layout and colour: the terminal's size, wrapping between cards, suit colours.

Colour and suit symbols are on only when the output is a terminal and
``NO_COLOR`` is unset (https://no-color.org); otherwise everything is plain
text, as pipes, logs and bots want it.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Iterable, Sequence
from typing import TextIO

ANSI = re.compile(r"\x1b\[[0-9;]*m")

FRENCH_SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}

_RED, _GREEN, _YELLOW, _BLUE, _BROWN = "31", "32", "33", "34", "38;5;130"
SUIT_COLOURS: dict[str, str] = {
    # by the pattern's suit name in engine.cards (not the translated one), so a code
    # gets its region's colour
    "Hearts": _RED,
    "Diamonds": _RED,
    "Coppe": _RED,
    "Denari": _YELLOW,
    "Spade": _BLUE,
    "Bastoni": _GREEN,
    "Eichel": _BROWN,
    "Gras": _GREEN,
    "Laub": _GREEN,
    "Herz": _RED,
    "Schellen": _YELLOW,
}


def visible_len(text: str) -> int:
    """The width of ``text`` on screen (colour codes take none)."""
    return len(ANSI.sub("", text))


def colour_wanted(stream: TextIO) -> bool:
    """Colour and symbols for ``stream``: a terminal, ``NO_COLOR`` unset, not a dumb one."""
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("TERM") == "dumb":
        return False
    return bool(getattr(stream, "isatty", lambda: False)())


def terminal_size(default: tuple[int, int] = (80, 24)) -> tuple[int, int]:
    """``(columns, rows)`` of the terminal (``default`` when unknown)."""
    size = shutil.get_terminal_size(default)
    return max(40, size.columns), max(10, size.lines)


class Style:
    """How cards look: plain codes, or coloured by suit with the French suit symbols."""

    def __init__(self, colour: bool = False) -> None:
        self.colour = colour

    def paint(self, text: str, code: str | None) -> str:
        """``text`` in the ANSI colour ``code`` (unchanged when colour is off)."""
        if not self.colour or not code:
            return text
        return f"\x1b[{code}m{text}\x1b[0m"

    def bold(self, text: str) -> str:
        return self.paint(text, "1")

    def suit_colour(self, suit_name: str) -> str | None:
        return SUIT_COLOURS.get(suit_name)

    def suit_label(self, suit: str, suit_name: str, french: bool, colour: str | None = None) -> str:
        """``♠`` (French, colour on) or the suit's name (in the player's language), in
        ``colour`` (default: the colour of ``suit_name``)."""
        label = FRENCH_SYMBOLS.get(suit, suit_name) if (french and self.colour) else suit_name
        return self.paint(label, colour or self.suit_colour(suit_name))


def wrap(head: str, items: Sequence[str], width: int, indent: int = 4, sep: str = " ") -> list[str]:
    """``head`` then ``items`` on lines no wider than ``width``, breaking only between items."""
    lines: list[str] = []
    line, started = head, False
    for item in items:
        glue = sep if started else ("" if not line or line.endswith(" ") else " ")
        candidate = line + glue + item
        if started and visible_len(candidate) > width:
            lines.append(line.rstrip())
            line = " " * indent + item.lstrip()
        else:
            line = candidate
        started = True
    lines.append(line.rstrip())
    return lines


def columns(labels: Sequence[str], width: int, indent: int = 2) -> list[str]:
    """``labels`` in as many columns as fit in ``width`` (one per line when they are long)."""
    if not labels:
        return []
    cell = max(visible_len(label) for label in labels) + 2
    per_row = max(1, (width - indent) // cell)
    if per_row == 1:
        return [" " * indent + label for label in labels]
    rows = (len(labels) + per_row - 1) // per_row
    out = []
    for r in range(rows):
        row = [labels[c * rows + r] for c in range(per_row) if c * rows + r < len(labels)]
        out.append(
            " " * indent
            + "".join(label + " " * (cell - visible_len(label)) for label in row).rstrip()
        )
    return out


def fits(lines: Iterable[str], width: int) -> bool:
    """Whether every line fits in ``width`` columns."""
    return all(visible_len(line) <= width for line in lines)
