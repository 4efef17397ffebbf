"""Playouts per second of Cicera ``hard`` on fixed decisions (issue 15).

    python -m bench.cicera_search [--deals 4] [--iterations 1000] [--default [--think S]]

:mod:`bench.search` for Cicera (``python -m bench.search --game cicera``):
the decisions of ``--deals`` deals played by ``normal``, each decided by a
fresh ``hard`` at a fixed iteration budget and seed; ``choices`` digests the
plays chosen (equal digests: the search decides exactly as before), CPU time
per playout is the figure, a fixed pure-Python loop the yardstick.  Its
flat-list play-outs were measured with it: 1.62× the playouts per CPU second
of the first version, with the same choices.

Progress goes to stderr; the last line of stdout is one JSON object.
"""

from __future__ import annotations

import sys
from typing import cast

from bench import search
from engine.cicera.state import CiceraView

GAME = "cicera"


def decisions(deals: int, seed: int) -> list[CiceraView]:
    """The views of every decision with a choice in ``deals`` deals played by ``normal``."""
    return [cast(CiceraView, view) for view, _ in search.decisions(GAME, deals, seed)]


def main(argv: list[str] | None = None) -> int:
    """Run :mod:`bench.search` for Cicera."""
    return search.main(argv, game_id=GAME)


if __name__ == "__main__":
    sys.exit(main())
