"""Schafkopf's values as the optional build compiles them (engine/schafkopf/state.py).

Their annotations are set again after the classes from a table (mypyc leaves
evaluated types there), and each pickles through ``__reduce__``: the table must
say what each class body says, and a pickled value must come back equal.
"""

from __future__ import annotations

import ast
import dataclasses
import pickle
import random
from pathlib import Path

from engine.codec import from_plain, to_plain
from engine.schafkopf import SchafkopfGame
from engine.schafkopf import state as values
from engine.schafkopf.state import SchafkopfView


def _written() -> dict[str, dict[str, str]]:
    """Each class of state.py with the annotations its body writes, as source text (read
    from the file: compiled, the module is a library)."""
    source = (Path(__file__).parents[3] / "engine" / "schafkopf" / "state.py").read_text()
    return {
        node.name: {
            item.target.id: ast.get_source_segment(source, item.annotation) or ""
            for item in node.body
            if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name)
        }
        for node in ast.parse(source).body
        if isinstance(node, ast.ClassDef)
    }


def test_the_annotations_table_says_what_each_class_writes() -> None:
    table = {cls.__name__: annotations for cls, annotations in values._AS_WRITTEN.items()}
    assert table == _written()


def test_each_class_holds_its_annotations_as_written() -> None:
    for cls, written in values._AS_WRITTEN.items():
        assert dataclasses.is_dataclass(cls)
        assert cls.__annotations__ == written
        assert [f.name for f in dataclasses.fields(cls)] == list(written)


def test_states_and_views_pickle_and_convert_back_equal() -> None:
    game = SchafkopfGame()
    rng = random.Random(5)
    state = game.new_state(game.options(), 5)
    while not game.is_over(state):
        for seat in (0, 1, 2, 3, None):
            view = game.view(state, seat)
            assert pickle.loads(pickle.dumps(view)) == view
            assert from_plain(SchafkopfView, to_plain(view), "view") == view
        assert pickle.loads(pickle.dumps(state)) == state
        seat = game.to_act(state)[0]
        state = game.apply(state, seat, rng.choice(game.legal_actions(state, seat))).state
