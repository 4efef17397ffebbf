"""No import circles in ``server/``: every module's imports (those under
``TYPE_CHECKING`` and inside functions too) form a graph without a cycle."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def module_graph(package: Path) -> dict[str, set[str]]:
    """Each module under ``package`` (a package's ``__init__`` as the package) and the
    modules of the same package it imports: for ``import a.b.c`` or ``from a.b
    import c``, the deepest of ``a.b.c``, ``a.b``, ``a`` that is one of them, and
    the packages above it (importing a module runs their ``__init__`` first: a
    package that re-exports from its modules is in a circle with each of them that
    imports a sibling)."""
    root = package.parent
    modules: dict[str, tuple[Path, bool]] = {}
    for path in sorted(package.rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        modules[".".join(parts[:-1] if is_package else parts)] = (path, is_package)
    graph: dict[str, set[str]] = {}
    for name, (path, is_package) in modules.items():
        here = name if is_package else name.rpartition(".")[0]
        named: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                named.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parent = here.split(".")[: len(here.split(".")) - node.level + 1]
                    base = ".".join([*parent, base] if base else parent)
                named.add(base)
                named.update(f"{base}.{alias.name}" for alias in node.names)
        graph[name] = set()
        for target in named:
            while target and target not in modules:
                target = target.rpartition(".")[0]
            while target:  # the module and the packages above it
                if target != name:
                    graph[name].add(target)
                target = target.rpartition(".")[0]
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import circles of ``graph``: its strongly connected parts of more than one
    module (Tarjan), each as a path that goes round it."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for other in sorted(graph[node]):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            part = []
            while True:
                other = stack.pop()
                part.append(other)
                if other == node:
                    break
            if len(part) > 1:
                found.append(_round(graph, set(part)))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def _round(graph: dict[str, set[str]], part: set[str]) -> list[str]:
    """A path through ``part`` (strongly connected) from its first module back to it."""
    start = min(part)
    paths = {start: [start]}
    queue = [start]
    while queue:
        node = queue.pop(0)
        for other in sorted(graph[node] & part):
            if other == start:
                return [*paths[node], start]
            if other not in paths:
                paths[other] = [*paths[node], other]
                queue.append(other)
    raise AssertionError(f"{sorted(part)} is not strongly connected")


def test_the_walk_follows_each_kind_of_import_and_finds_the_circles(tmp_path: Path) -> None:
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text('"""A package."""\n')
    (pkg / "sub" / "__init__.py").write_text("")
    type_checking = "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    import pkg.c\n"
    (pkg / "a.py").write_text(type_checking)
    (pkg / "c.py").write_text("def f():\n    from .sub import b\n")  # relative, in a function
    (pkg / "sub" / "b.py").write_text("import json\n")
    graph = module_graph(pkg)
    assert graph == {
        "pkg": set(),
        "pkg.a": {"pkg", "pkg.c"},
        "pkg.c": {"pkg", "pkg.sub", "pkg.sub.b"},
        "pkg.sub": set(),
        "pkg.sub.b": set(),
    }
    assert cycles(graph) == []
    (pkg / "sub" / "b.py").write_text("from pkg.a import x\n")
    assert cycles(module_graph(pkg)) == [["pkg.a", "pkg.c", "pkg.sub.b", "pkg.a"]]
    (pkg / "sub" / "b.py").write_text("x = 1\n")
    (pkg / "sub" / "__init__.py").write_text("from pkg.sub.b import x\n")  # a re-export
    (pkg / "sub" / "d.py").write_text("y = 2\n")
    assert cycles(module_graph(pkg)) == []
    (pkg / "sub" / "b.py").write_text("from pkg.sub.d import y\n")  # runs pkg.sub first
    assert cycles(module_graph(pkg)) == [["pkg.sub", "pkg.sub.b", "pkg.sub"]]


def test_no_module_of_the_server_imports_itself_through_others() -> None:
    found = cycles(module_graph(ROOT / "server"))
    assert not found, "import circles in server/:\n" + "\n".join(" -> ".join(c) for c in found)
