"""The build's native value classes (engine.native_build), checked as plain Python.

The compiled build itself is checked against plain Python in
``tests/engine/test_compiled.py`` (the same moves, refusals and conversions).
Here: the rewritten module defines the same dataclasses, with an ``__init__``
of the same parameters, a ``__reduce__`` of every field, the annotations as
written, and nothing else changed.
"""

from __future__ import annotations

import dataclasses
import inspect
import sys
import types
import typing
from pathlib import Path
from typing import Any

import pytest

from engine.compiled import NATIVE_VALUES, ROOT
from engine.native_build import native_classes, native_values

_TRANSFORMED = {path: native_values((ROOT / path).read_text()) for path in NATIVE_VALUES}


def _load(path: str) -> tuple[types.ModuleType, types.ModuleType]:
    """The module of ``path`` as it is, and its rewritten source run as a module."""
    original = sys.modules[path.removesuffix(".py").replace("/", ".")]
    native = types.ModuleType(original.__name__ + "_native")
    sys.modules[native.__name__] = native  # dataclasses looks its module up
    try:
        exec(compile(_TRANSFORMED[path], path, "exec"), native.__dict__)
    finally:
        del sys.modules[native.__name__]
    return original, native


def _dataclasses(module: types.ModuleType) -> dict[str, type]:
    return {
        name: value
        for name, value in vars(module).items()
        if isinstance(value, type)
        and dataclasses.is_dataclass(value)
        and value.__module__ == module.__name__
    }


@pytest.mark.parametrize("path", NATIVE_VALUES)
def test_the_rewritten_classes_are_the_same_dataclasses(path: str) -> None:
    __import__(path.removesuffix(".py").replace("/", "."))
    original, native = _load(path)
    mine, theirs = _dataclasses(native), _dataclasses(original)
    assert set(mine) == set(theirs) and mine
    # the classes made native (the build types their conversions by them): the fast ones
    made = native_classes((ROOT / path).read_text())
    assert made and set(made) == {n for n, c in theirs.items() if "__slots__" in vars(c)}
    assert all("__reduce__" in vars(mine[n]) for n in made)
    for name, cls in mine.items():
        reference = theirs[name]
        assert [f.name for f in dataclasses.fields(cls)] == [
            f.name for f in dataclasses.fields(reference)
        ]
        assert cls.__dataclass_params__.frozen  # type: ignore[attr-defined]
        # the annotations as written (an opened alias written out): the codec's types
        hints = typing.get_type_hints(cls, vars(native))
        same = {k: repr(v).replace(native.__name__, original.__name__) for k, v in hints.items()}
        assert same == {k: repr(v) for k, v in typing.get_type_hints(reference).items()}
        init = inspect.signature(cls.__init__)  # type: ignore[misc]
        assert list(init.parameters) == list(inspect.signature(reference.__init__).parameters)
        for p, q in zip(
            init.parameters.values(),
            inspect.signature(reference.__init__).parameters.values(),
            strict=True,
        ):
            assert p.default == q.default or (p.default is None and q.default is not q.empty)
        # __reduce__ gives every field, in order, to build the same value again
        values = [object() for _ in dataclasses.fields(cls)]
        probe: Any = object.__new__(cls)
        for f, value in zip(dataclasses.fields(cls), values, strict=True):
            object.__setattr__(probe, f.name, value)
        assert probe.__reduce__() == (cls, tuple(values))


def test_fixed_length_tuples_are_opened_and_the_rest_is_untouched() -> None:
    source = (ROOT / "engine/schafkopf/state.py").read_text()
    native = _TRANSFORMED["engine/schafkopf/state.py"]
    assert "Four = tuple[int, ...]" in native and "Hands = tuple[Hand, ...]" in native
    assert "    cards: tuple[Card, ...]" in native
    assert "@fast_init" not in native and "@dataclass(frozen=True, slots=True)" not in native
    rewritten = ("fast_init", "tuple[", "@dataclass(frozen=True, slots=True)")
    kept = [line for line in source.split("\n") if not any(r in line for r in rewritten)]
    assert all(line in native for line in kept)  # docstrings, fields, methods as they were


def test_classes_next_to_each_other_are_each_rewritten() -> None:
    source = (
        "from __future__ import annotations\n"
        "from dataclasses import dataclass\n"
        "@fast_init\n"
        "@dataclass(frozen=True, slots=True)\n"
        "class A:\n"
        "    x: int\n"
        "@fast_init\n"
        "@dataclass(frozen=True, slots=True)\n"
        "class B:\n"
        "    y: tuple[int, int] = (1, 2)\n"
    )
    module: dict[str, Any] = {"fast_init": None, "__name__": "probe"}
    sys.modules["probe"] = types.ModuleType("probe")
    try:
        exec(compile(native_values(source), "probe", "exec"), module)
    finally:
        del sys.modules["probe"]
    a, b = module["A"], module["B"]
    assert [f.name for f in dataclasses.fields(a)] == ["x"]
    assert [f.name for f in dataclasses.fields(b)] == ["y"]
    assert str(inspect.signature(b.__init__)) == "(self, y: 'tuple[int, ...]' = (1, 2)) -> 'None'"
    assert b.__annotations__ == {"y": "tuple[int, int]"}


_HEAD = "from __future__ import annotations\nfrom dataclasses import dataclass\n"


@pytest.mark.parametrize(
    ("cls", "why"),
    [
        (
            "@dataclass(frozen=True)\nclass Options(GameOptions):\n    deals: int = 4\n",
            "base class",
        ),
        (
            "@fast_init\n@dataclass(frozen=True, slots=True)\nclass Move:\n"
            "    kind: ClassVar[str] = 'move'\n    card: str\n",
            "ClassVar",
        ),
    ],
)
def test_a_class_with_a_base_or_a_class_variable_is_refused(cls: str, why: str) -> None:
    with pytest.raises(ValueError, match=why):
        native_values(_HEAD + cls)


def test_the_native_modules_exist() -> None:
    assert all((ROOT / Path(path)).is_file() for path in NATIVE_VALUES)
