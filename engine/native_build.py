"""The engine's value classes as native classes: a build step of ``scripts/compile.py``.

The engine's states, views and records are frozen, slotted dataclasses
with :func:`engine.frozen.fast_init`'s ``__init__``.  Compiled by mypyc as
they are, they stay slow: mypyc keeps the ``__init__`` that :mod:`dataclasses`
writes (interpreted, one ``object.__setattr__`` call per field, 1.7 µs for a
19-field view), and reading a field from compiled code is a generic lookup.
For the modules of :data:`engine.compiled.NATIVE_VALUES`, the build writes
into its staged copy, before compiling it, :func:`native_values` of the
source: each such class gets an ``__init__`` of its own, which mypyc
compiles to stores into the instance (tens of nanoseconds), and the game
code compiled with it reads fields directly.  What the class is does not
change: the same fields, defaults, equality, hash, ``repr`` and frozenness
(:mod:`dataclasses` still makes them), and

* a ``__reduce__`` builds a copy through ``__init__`` (pickling for the AI's
  processes: a native class has no slots for pickle to set);
* the class's annotations are set back to the source's after it: mypyc
  records evaluated types there (``int | None`` becomes ``type``), while
  :func:`typing.get_type_hints`, which :mod:`engine.codec` plans its
  conversions by and :mod:`engine.plain_decode` decodes by, needs them as
  written;
* fixed length tuple types (``tuple[int, int, int, int]``, and the module's
  aliases of them) are written as tuples of any length (see
  :func:`_open_tuples`).

A dataclass with a base class is refused (a native class cannot extend a
Python one), and so is one with a ``ClassVar`` (mypyc's dataclasses lose the
``ClassVar`` and make it a field): the Schafkopf moves and options live in
plain modules for those reasons.  The source in the tree stays as it is,
and runs so when not compiled.
"""

from __future__ import annotations

import ast

_FROZEN_SLOTS = "@dataclass(frozen=True, slots=True)"


def native_values(source: str) -> str:
    """``source`` with each :func:`~engine.frozen.fast_init` dataclass made ready for
    mypyc to compile natively (see the module docstring)."""
    tree = ast.parse(source)
    lines = source.split("\n")
    opened = _open_tuples(tree, lines)
    edits: list[tuple[int, int, list[str]]] = []  # (first line, lines replaced, new lines)
    for node in tree.body:
        if not isinstance(node, ast.ClassDef) or not _is_dataclass(node):
            continue
        after = [
            "",
            f"setattr({node.name}, '__annotations__', {_annotations(source, node, opened)!r})",
        ]
        if node.bases:
            raise ValueError(f"{node.name}: a base class (a native class cannot extend it)")
        if _made_native(node):
            for d in node.decorator_list:
                line = d.lineno - 1
                if _is_name(d, "fast_init"):
                    edits.append((line, 1, []))
                elif lines[line].strip() == _FROZEN_SLOTS:
                    edits.append((line, 1, ["@dataclass(frozen=True)"]))
                else:
                    raise ValueError(f"{node.name}: expected {_FROZEN_SLOTS}")
            after = _methods(source, node) + after
        edits.append((_last_line(node), 0, after))
    # from the end, so that each edit's line numbers still hold; at one line, what
    # replaces it before what is inserted there (a class's end, the next one's decorator)
    for first, count, new in sorted(edits, key=lambda e: (e[0], e[1]), reverse=True):
        lines[first : first + count] = new
    out = "\n".join(lines)
    anchor = "from __future__ import annotations\n"
    if anchor not in out:
        raise ValueError("the module lacks 'from __future__ import annotations'")
    return out.replace(anchor, anchor + "\nfrom typing import Any\n", 1)


def native_classes(source: str) -> list[str]:
    """The classes of ``source`` that :func:`native_values` makes native classes (its
    :func:`~engine.frozen.fast_init` dataclasses), by name."""
    return [
        node.name
        for node in ast.parse(source).body
        if isinstance(node, ast.ClassDef) and _is_dataclass(node) and _made_native(node)
    ]


def _made_native(node: ast.ClassDef) -> bool:
    return not node.bases and any(_is_name(d, "fast_init") for d in node.decorator_list)


def _open_tuples(tree: ast.Module, lines: list[str]) -> dict[str, ast.expr]:
    """Write each fixed length tuple type of the module's aliases and fields
    (``Four = tuple[int, int, int, int]``) as a tuple of any length
    (``tuple[int, ...]``), in ``lines``.

    mypyc keeps a value of a fixed length tuple type unboxed, as C values, and
    makes a new tuple each time it is read or passed on: a view's unchanged
    field would no longer be the very same object, which is how
    :class:`engine.codec.PlainMemo` tells unchanged fields.  The class's
    annotations, set back after it, keep the exact types for the codec; so the
    aliases opened are returned, by name, with the types they stood for.
    """
    aliases: dict[str, ast.expr] = {}
    found: list[ast.expr] = []
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            found.append(node.value)
            target = node.targets[0]
            if isinstance(target, ast.Name) and _fixed_parts(node.value) is not None:
                aliases[target.id] = node.value
        elif isinstance(node, ast.ClassDef):
            found += [i.annotation for i in node.body if isinstance(i, ast.AnnAssign)]
    for expr in sorted(found, key=lambda e: (e.lineno, e.col_offset), reverse=True):
        opened = _opened_type(expr)
        if opened is None or expr.lineno != expr.end_lineno:
            continue
        line = expr.lineno - 1
        text = lines[line]
        assert expr.end_col_offset is not None
        lines[line] = f"{text[: expr.col_offset]}{opened}{text[expr.end_col_offset :]}"
    return aliases


def _opened(annotation: str) -> str:
    """``annotation`` (source text) with a fixed length tuple written as one of any length."""
    return _opened_type(ast.parse(annotation, mode="eval").body) or annotation


def _opened_type(expr: ast.expr) -> str | None:
    """``tuple[X, ...]`` for ``tuple[X, X, X]`` (``tuple[Any, ...]`` for mixed items);
    None if ``expr`` is not a fixed length tuple type."""
    parts = _fixed_parts(expr)
    if parts is None:
        return None
    same = {ast.dump(p) for p in parts}
    return f"tuple[{ast.unparse(parts[0]) if len(same) == 1 else 'Any'}, ...]"


def _fixed_parts(expr: ast.expr) -> list[ast.expr] | None:
    """The item types of ``expr`` if it is a fixed length tuple type, else None."""
    if not isinstance(expr, ast.Subscript) or not _is_name(expr.value, "tuple"):
        return None
    items = expr.slice
    parts = list(items.elts) if isinstance(items, ast.Tuple) else [items]
    if not parts or any(isinstance(p, ast.Constant) and p.value is Ellipsis for p in parts):
        return None
    return parts


def _is_name(node: ast.expr, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name


def _is_dataclass(node: ast.ClassDef) -> bool:
    return any(
        _is_name(d.func if isinstance(d, ast.Call) else d, "dataclass") for d in node.decorator_list
    )


def _last_line(node: ast.ClassDef) -> int:
    """The index (0-based) of the line after the class's last one."""
    assert node.end_lineno is not None
    return node.end_lineno


def _fields(source: str, node: ast.ClassDef) -> list[tuple[str, str, str | None, str | None]]:
    """Each field: name, annotation, default and default factory (as source text)."""
    out = []
    for item in node.body:
        if not isinstance(item, ast.AnnAssign) or not isinstance(item.target, ast.Name):
            continue
        annotation = ast.get_source_segment(source, item.annotation) or ""
        if annotation.startswith(("ClassVar", "typing.ClassVar")):
            raise ValueError(f"{node.name}.{item.target.id}: a ClassVar (mypyc makes it a field)")
        default = factory = None
        value = item.value
        if isinstance(value, ast.Call) and _is_name(value.func, "field"):
            for keyword in value.keywords:
                text = ast.get_source_segment(source, keyword.value)
                if keyword.arg == "default":
                    default = text
                elif keyword.arg == "default_factory":
                    factory = text
                else:
                    raise ValueError(f"{node.name}.{item.target.id}: field({keyword.arg}=...)")
        elif value is not None:
            default = ast.get_source_segment(source, value)
        out.append((item.target.id, annotation, default, factory))
    return out


def _annotations(source: str, node: ast.ClassDef, aliases: dict[str, ast.expr]) -> dict[str, str]:
    """The class's annotations as written, an opened alias written out as what it stood
    for (``Four`` as ``tuple[int, int, int, int]``)."""

    class Expand(ast.NodeTransformer):
        def visit_Name(self, name: ast.Name) -> ast.expr:
            return aliases.get(name.id, name)

    out = {}
    for item in node.body:
        if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
            text = ast.get_source_segment(source, item.annotation) or ""
            tree = Expand().visit(ast.parse(text, mode="eval"))
            out[item.target.id] = text if not aliases else ast.unparse(tree)
    return out


def _methods(source: str, node: ast.ClassDef) -> list[str]:
    """The class's own ``__init__`` (its fields stored, ``__post_init__`` called) and
    ``__reduce__``."""
    fields = [(n, _opened(a), d, f) for n, a, d, f in _fields(source, node)]
    params, body = [], []
    store = "  # type: ignore[misc]"  # a frozen dataclass's field, set in __init__
    for name, annotation, default, factory in fields:
        if factory is not None:
            params.append(f"{name}: {annotation} | None = None")
            body.append(f"        self.{name} = {factory}() if {name} is None else {name}{store}")
            continue
        params.append(f"{name}: {annotation}" + ("" if default is None else f" = {default}"))
        body.append(f"        self.{name} = {name}{store}")
    if any(isinstance(i, ast.FunctionDef) and i.name == "__post_init__" for i in node.body):
        body.append("        self.__post_init__()")
    values = "".join(f"self.{name}, " for name, *_ in fields)
    return [
        "",
        f"    def __init__(self{''.join(', ' + p for p in params)}) -> None:",
        *(body or ["        pass"]),
        "",
        "    def __reduce__(self) -> tuple[object, ...]:",
        f"        return (type(self), ({values}))",
    ]
