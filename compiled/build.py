"""Compile the modules of :mod:`compiled.modules` to C extensions with mypyc
(optional, for production).

``python -m compiled.build`` builds each module of
:data:`compiled.modules.COMPILED` into a shared library next to its source
(``engine/doudizhu/ai/search.py`` → ``engine/doudizhu/ai/search.cpython-311-
x86_64-linux-gnu.so``), which Python then imports in place of the source: the
same code, type-checked, run as C.  It also writes the conversions to plain
data that :mod:`engine.codec` generates for the games' values into one module
and compiles it (:data:`compiled.modules.GENERATED`, its library put in this
package).  ``--clean`` removes the libraries again; ``--root DIR`` compiles the
copy of the project under ``DIR`` (a ``site-packages`` that ``pip install .``
filled, as ``deploy/Dockerfile`` does).

Nothing needs it: without a C compiler or without running it, everything runs
as plain Python, with the same results (``tests/engine/test_compiled.py``).
The sources are compiled as they are, never rewritten first.  An edited source
is not recompiled by itself: the server refuses to start with a compiled module
older than its source (:func:`compiled.runtime.stale`), so run this again after
a change, or ``--clean`` while developing.  Needs the pinned mypy (the ``dev``
extra: mypyc), setuptools, a C compiler and the Python headers.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from compiled.modules import COMPILED, GENERATED, GROUP
from compiled.runtime import ROOT, compiled_files

PACKAGES = ("client_web", "compiled", "engine", "protocol", "server")
"""The project's packages the build copies: those of the compiled modules and
what they import (``server/net/static.py`` serves ``client_web``)."""


def clean(root: Path) -> int:
    """Remove the compiled libraries under ``root``; how many were removed."""
    removed = 0
    for path in list(compiled_files(root)):
        path.unlink()
        removed += 1
    return removed


def _converters_of(stage: Path) -> str:
    """The source of :data:`GENERATED`'s module, made by the staged copy's own engine
    (:func:`compiled.converters.converter_module`), in a process of its own: this
    one imported the engine of ``ROOT``, maybe compiled from older sources."""
    code = "import sys, compiled.converters as c; sys.stdout.write(c.converter_module())"
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=stage,
        env={**os.environ, "PYTHONPATH": str(stage)},
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"generating the conversions failed:\n{done.stderr}")
    return done.stdout


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
        (stage / GENERATED[0]).write_text(_converters_of(stage))
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
    parser = argparse.ArgumentParser(
        prog="python -m compiled.build", description=__doc__.split("\n\n")[0]
    )
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
