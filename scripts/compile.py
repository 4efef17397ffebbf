"""Compile Dou Dizhu's AI and the server's hot path to C extensions with mypyc
(optional, for production).

``python scripts/compile.py`` builds each module of
:data:`engine.compiled.COMPILED` into a shared library next to its source
(``engine/doudizhu/ai_search.py`` → ``engine/doudizhu/ai_search.cpython-311-
x86_64-linux-gnu.so``), which Python then imports in place of the source: the
same code, type-checked, run as C.  Dou Dizhu ``hard`` then buys about twice
the play-outs in the same think time, and the same play-outs cost half the
CPU; a move through the server takes about a fifth fewer instructions
(:data:`engine.compiled.HOT_PATH` gives the figures).  It also writes the
conversions to plain data that :mod:`engine.codec` generates for the games'
values into one module of its build and compiles it
(:data:`engine.compiled.GENERATED`).  ``--clean`` removes the libraries again;
``--root DIR`` compiles the copy of the project under ``DIR`` (a
``site-packages`` that ``pip install .`` filled, as ``deploy/Dockerfile`` does).

Nothing needs it: without a C compiler or without running it, everything runs
as plain Python, with the same results (``tests/engine/test_compiled.py``
checks that compiled and plain code make the same decisions, and runs a
compiled server through the fuzzer and the leak audit).  An edited source
is not recompiled by itself: the server refuses to start with a compiled module
older than its source (:func:`engine.compiled.stale`), so run this again after
a change, or ``--clean`` while developing.  Needs mypy (the ``dev`` extra), a C
compiler and the Python headers.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine.compiled import COMPILED, GENERATED, GROUP, compiled_files  # noqa: E402

PACKAGES = ("client_web", "engine", "protocol", "server")
"""The project's packages the build copies: those of the compiled modules and
what they import (``server/static.py`` serves ``client_web``)."""


def clean(root: Path) -> int:
    """Remove the compiled libraries under ``root``; how many were removed."""
    removed = 0
    for path in list(compiled_files(root)):
        path.unlink()
        removed += 1
    return removed


_TYPED_NAMES = {
    "_scalars": "frozenset[type]",
    "_immutable_types": "dict[type, bool]",
    "_missing": "object",
}
"""The generated conversions' names whose type helps mypyc (the others are called)."""


def converter_sources(seeds: int = 3) -> list[str]:
    """The conversions :mod:`engine.codec` generates while ``seeds`` random games of
    each game are played and converted as the server converts them: every
    seat's view and a spectator's (each state's together, as a table does),
    the events, the legal moves, the result."""
    import random

    from engine.codec import CONVERTER_SOURCES, PlainMemo, to_plain
    from engine.registry import GAMES

    for game in GAMES.values():
        options = game.options()
        seats: list[int | None] = [*range(game.num_seats(options)), None]
        for seed in range(seeds):
            rng = random.Random(seed)
            state = game.new_state(options, seed)
            events = list(game.start_events(state))
            memo = PlainMemo()
            while True:
                views = [game.view(state, seat) for seat in seats]
                memo.convert(views)
                to_plain([*views, *events])
                if game.is_over(state):
                    break
                seat = game.to_act(state)[0]
                legal = game.legal_actions(state, seat)
                to_plain(legal)
                transition = game.apply(state, seat, rng.choice(legal))
                state, events = transition.state, list(transition.events)
            to_plain(game.result(state))
    return list(CONVERTER_SOURCES)


def converter_module(sources: list[str]) -> str:
    """The module of :data:`GENERATED`: each of ``sources`` as a typed function, and
    ``BY_SOURCE``, each function by the source it was made from.

    The code is the source's own, with its arguments and locals typed and
    ``_list``, ``_map`` and ``_sorted`` (bound to the builtins) called by their
    builtin names, which mypyc runs directly."""
    from engine.codec import converter_namespace

    names = sorted(converter_namespace())
    lines = [
        '"""engine.codec\'s generated conversions, compiled: written by scripts/compile.py',
        'into its build (see engine.codec.CONVERTER_SOURCES).  Not for editing."""',
        "",
        "from __future__ import annotations",
        "",
        "from typing import Any, Final",
        "",
        "from engine import codec as _codec",
        "",
        "_NAMES = _codec.converter_namespace()",
    ]
    for name in names:
        typed = _TYPED_NAMES.get(name)
        lines.append(f"{name}: Final{f'[{typed}]' if typed else ''} = _NAMES[{name!r}]")
    table = []
    for i, source in enumerate(sources):
        head, body = source.split("\n", 1)
        if head == "def convert(v, mine, prev, ch):":
            signature = "v: Any, mine: list[Any], prev: list[Any] | None, ch: dict[str, Any]"
        elif head == "def convert(v):":
            signature = "v: Any"
        else:  # pragma: no cover - engine.codec generates only these two
            raise ValueError(f"unexpected conversion: {head}")
        local = sorted(set(re.findall(r"\b(r\d+|x|t|k|c)\b(?= =| :=)", body)))
        for builtin in ("list", "map", "sorted"):
            body = body.replace(f"_{builtin}(", f"{builtin}(")
        lines += ["", "", f"def _c{i}({signature}) -> dict[str, Any]:"]
        lines += [f"    {name}: Any" for name in local]
        lines.append(body.rstrip("\n"))
        table.append(f"    {source!r}: _c{i},")
    lines += ["", "", "BY_SOURCE: Final[dict[str, Any]] = {", *table, "}", ""]
    return "\n".join(lines)


def build(root: Path, jobs: int, opt_level: str) -> None:
    """Compile :data:`COMPILED` of ``root`` and put the libraries beside its sources
    (``opt_level``: the C compiler's, ``0``–``3``; the same decisions at each).

    The build runs on a copy of the packages it compiles (:data:`PACKAGES`) in a
    temporary folder: mypyc takes every top-level module of its working folder
    for the project's, so it cannot run in a ``site-packages``.
    """
    from mypyc.build import mypycify
    from setuptools import Distribution  # type: ignore[import-untyped]

    before = Path.cwd()
    with tempfile.TemporaryDirectory(prefix="cardavia-mypyc-") as work:
        stage = Path(work) / "stage"
        skip = shutil.ignore_patterns("*.so", "__pycache__")
        for package in PACKAGES:
            shutil.copytree(root / package, stage / package, ignore=skip)
        (stage / GENERATED[0]).write_text(converter_module(converter_sources()))
        os.chdir(stage)
        try:
            extensions = mypycify(
                list(COMPILED + GENERATED),
                opt_level=opt_level,
                debug_level="0" if opt_level == "0" else "1",  # a fast build, for tests
                multi_file=True,
                target_dir=str(Path(work) / "c"),
                group_name=GROUP.removesuffix("__mypyc"),
            )
            # a bare Distribution: setup() would read a pyproject.toml, not needed here
            dist = Distribution({"name": "cardavia-compiled", "ext_modules": extensions})
            command = dist.get_command_obj("build_ext")
            command.inplace = True
            command.parallel = jobs
            command.build_temp = str(Path(work) / "temp")
            dist.run_command("build_ext")
        finally:
            os.chdir(before)
        for library in list(compiled_files(stage)):
            shutil.copy2(library, root / library.relative_to(stage))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clean", action="store_true", help="remove the compiled libraries")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="parallel C jobs")
    parser.add_argument(
        "--root", type=Path, default=ROOT, help=f"the folder holding {', '.join(PACKAGES)}"
    )
    parser.add_argument(
        "--opt-level",
        choices=("0", "1", "2", "3"),
        default="3",
        help="the C compiler's optimisation: 3 for use, 0 to build fast (tests: no debug symbols)",
    )
    args = parser.parse_args(argv)
    root = args.root.resolve()
    missing = [path for path in COMPILED if not (root / path).is_file()]
    missing += [package for package in PACKAGES if not (root / package).is_dir()]
    if missing:
        parser.error(f"{root} holds no {missing[0]}")
    removed = clean(root)
    if args.clean:
        print(f"removed {removed} compiled libraries")
        return 0
    build(root, max(1, args.jobs), args.opt_level)
    built = sum(1 for _ in compiled_files(root))
    print(f"compiled {len(COMPILED + GENERATED)} modules ({built} libraries)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
