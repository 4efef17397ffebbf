"""engine.sharing's contract: what did not change is the very same object, from a
state's fields to its views, their plain forms and the view changes a connection
sends (server.tables.updates → Frame.hint → server.net.view_changes)."""

from __future__ import annotations

import dataclasses
import itertools
import random
from typing import Any

import pytest

from engine.codec import PlainMemo
from engine.registry import GAMES, get_game
from engine.sharing import TO_ACT, Interned, replace, shared_counts
from protocol.codec import Frame
from server.net.view_changes import ViewsSent, changed_fields
from server.tables.updates import Change, UpdateBuilder

_SCALARS = (int, str, float, bool, type(None))
"""Values whose identity nobody relies on (small, compared by value where it matters)."""


def _plays(game_id: str, seed: int, moves: int) -> list[Any]:
    """The states of a random game of ``game_id`` (at most ``moves`` moves)."""
    game = get_game(game_id)
    state = game.new_state(game.options(), seed)
    rng = random.Random(seed)
    states = [state]
    while not game.is_over(state) and len(states) <= moves:
        seat = game.to_act(state)[0]
        state = game.apply(state, seat, rng.choice(game.legal_actions(state, seat))).state
        states.append(state)
    return states


def test_the_helpers_hand_out_one_object_per_value() -> None:
    assert TO_ACT[3] is TO_ACT[3] and TO_ACT[3] == (3,)
    counts = tuple([4, 5, 6])  # a new tuple each time
    assert shared_counts(counts) is shared_counts(tuple([4, 5, 6]))
    made: list[int] = []
    table: Interned[int, list[int]] = Interned(lambda key: [key, *made], 2)
    first = table[1]
    assert table[1] is first
    table[2]
    table[3]  # a third key: the table starts afresh, what it handed out stays
    assert table[1] is not first and table[1] == first == [1]


@dataclasses.dataclass(frozen=True)
class _Pair:
    left: tuple[int, ...]
    right: tuple[int, ...]


def test_replace_keeps_every_field_it_is_not_told_to_change() -> None:
    pair = _Pair(tuple([1, 2]), tuple([3]))
    moved = replace(pair, right=(4,))
    assert moved.left is pair.left and moved.right == (4,)


@pytest.mark.parametrize("game_id", list(GAMES))
def test_a_field_equal_in_consecutive_views_is_the_very_same_object(game_id: str) -> None:
    """Every seat's view (and the spectator's) of a state and of the next hold the
    very same object for each field that did not change: a new, equal object would
    be converted and sent again (``engine.sharing``)."""
    game = get_game(game_id)
    viewers = [*range(game.num_seats(game.options())), None]
    for seed in (1, 2):
        states = _plays(game_id, seed, 120)
        for before, after in itertools.pairwise(states):
            for seat in viewers:
                old, new = game.view(before, seat), game.view(after, seat)
                for f in dataclasses.fields(old):
                    a, b = getattr(old, f.name), getattr(new, f.name)
                    if not isinstance(a, _SCALARS) and a == b:
                        assert a is b, (game_id, seat, f.name)


def _fields(frame: Frame) -> dict[str, Any]:
    fields = frame.fields
    assert fields is not None
    return fields


def test_unchanged_plain_forms_are_shared_and_only_changes_go_to_a_connection() -> None:
    """From the engine's shared objects to what a ``view_changes`` connection gets: the
    plain form of an unchanged field is the very object sent last time, the update's
    hint names exactly the fields that are not, and the connection sends those."""
    game = get_game("scopa")
    states = _plays("scopa", 5, 3)
    builder = UpdateBuilder()
    sent = ViewsSent()
    frames: list[tuple[Frame, Frame]] = []
    for version, state in enumerate(states[:2]):
        change = Change("t1", game_no=1, version=version, actor=None, by=None, timer=None)
        (_, frame), _spectators = builder.updates(
            game, state, (), change, humans=[(0, "p0")], spectators=("s",)
        )
        assert isinstance(frame, Frame)
        out = sent.outgoing(frame, frame.message_type)
        assert isinstance(out, Frame)
        frames.append((frame, out))
    (first, first_out), (second, second_out) = frames
    assert first_out is first  # no view sent before: the whole view
    hint = second.hint
    assert isinstance(hint, tuple)
    last, changed = hint
    assert last is _fields(first)["view"]  # the hint's view is the one sent last
    view = _fields(second)["view"]
    unchanged = [k for k in view if k not in changed]
    assert unchanged and all(view[k] is last[k] for k in unchanged)
    assert changed == changed_fields(view, last)  # the same answer compared field by field
    assert _fields(second_out)["view"] == changed  # only the changes are sent


def test_an_equal_new_object_is_sent_again_and_nothing_else_goes_wrong() -> None:
    """What a broken identity costs: a field rebuilt as an equal new object counts as
    changed (sent again, more bytes), while the view the client merges stays right."""
    game = get_game("scopa")
    state = _plays("scopa", 5, 0)[0]
    memo = PlainMemo()
    view = game.view(state, 0)
    (first,) = memo.convert([view])
    copied = replace(view, table=tuple(list(view.table)), options=dataclasses.replace(view.options))
    (second,) = memo.convert([copied])
    changed = changed_fields(second, first)
    assert changed is not None and set(changed) == {"table", "options"}
    assert {**first, **changed} == second  # the merged view is right, only longer to send
