"""The check a process runs at start: which modules run compiled, and whether
any library is older than its source.

A library older than its source would run old code, so the server refuses to
start on one (:func:`stale`); it reports how many modules it runs compiled
(:func:`loaded`).
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from pathlib import Path

from compiled.modules import COMPILED, GENERATED, GROUP, module_name

ROOT = Path(__file__).resolve().parent.parent
"""The folder holding the project's packages (a checkout, or a ``site-packages``)."""


def _libraries(source: Path) -> Iterator[Path]:
    """The compiled libraries of the module ``source`` (``search.py`` →
    ``search.cpython-311-x86_64-linux-gnu.so``)."""
    return source.parent.glob(f"{source.stem}.*.so")


def compiled_files(root: Path = ROOT) -> Iterator[Path]:
    """The compiled libraries present under ``root`` (the modules' and the runtime's)."""
    yield from root.glob(f"{GROUP}.*")
    for path in COMPILED + GENERATED:
        yield from _libraries(root / path)


def loaded() -> list[str]:
    """The modules of :data:`COMPILED` and :data:`GENERATED` that import as compiled
    libraries."""
    out = []
    for path in COMPILED + GENERATED:
        spec = importlib.util.find_spec(module_name(path))
        if spec is not None and spec.origin is not None and not spec.origin.endswith(".py"):
            out.append(module_name(path))
    return out


def built(root: Path = ROOT) -> list[str]:
    """The modules of :data:`COMPILED` and :data:`GENERATED` that have a library
    under ``root`` (the modules a server started there runs compiled;
    ``root``-relative paths)."""
    return [path for path in COMPILED + GENERATED if any(_libraries(root / path))]


def stale(root: Path = ROOT) -> list[str]:
    """Sources changed after their library was built (``root``-relative paths)."""
    out = []
    for path in COMPILED:
        source = root / path
        if any(source.stat().st_mtime > lib.stat().st_mtime for lib in _libraries(source)):
            out.append(path)
    return out
