"""Decoded actions kept by their bytes: the same answers as the game's own decoder."""

from __future__ import annotations

import random
from typing import Any

import msgpack  # type: ignore[import-untyped]
import ormsgpack
import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.codec import to_plain
from engine.game import IllegalAction
from engine.registry import GAMES
from server.tables.action_cache import ActionDecoder, decoder_for


def _legal_plays(game_id: str, moves: int = 60) -> list[Any]:
    """Plain legal actions met along a random game."""
    game = GAMES[game_id]
    state = game.new_state(game.options(), 3)
    rng = random.Random(7)
    seen: list[Any] = []
    for _ in range(moves):
        if game.is_over(state):
            break
        seat = game.to_act(state)[0]
        legal = game.legal_actions(state, seat)
        seen.extend(to_plain(a) for a in legal)
        state = game.apply(state, seat, rng.choice(legal)).state
    return seen


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_every_legal_action_decodes_as_the_game_decodes_it_cached_or_not(game_id: str) -> None:
    game = GAMES[game_id]
    decoder = ActionDecoder(game)
    plays = _legal_plays(game_id)
    for _ in range(2):  # the second round comes from the cache
        for plain in plays:
            typed, canonical = decoder.decode(plain)
            assert typed == game.decode_action(plain)
            assert canonical == to_plain(typed) == plain
    assert 0 < len(decoder) <= len(plays)


def test_what_the_decoder_tells_apart_stays_apart() -> None:
    game = GAMES["doudizhu"]
    decoder = ActionDecoder(game)
    typed, _ = decoder.decode({"type": "bid", "value": 1})
    assert typed == game.decode_action({"type": "bid", "value": 1})
    for bad in ({"type": "bid", "value": True}, {"type": "bid", "value": 1.0}):
        with pytest.raises(IllegalAction) as caught:
            decoder.decode(bad)
        assert caught.value.code == "bad_action"
    # a list and a tuple read alike (msgpack clients send tuples, JSON ones lists)
    play = {"type": "play", "card": "7D", "capture": ["3S", "4C"]}
    scopa = ActionDecoder(GAMES["scopa"])
    assert scopa.decode(play) == scopa.decode({**play, "capture": ("4C", "3S")})


@pytest.mark.parametrize(
    "junk",
    [{"type": "bid", "value": 2**70}, {"type": {}}, {"type": ["bid"]}, [1, 2], None, "bid"],
)
def test_junk_gets_the_games_own_error_every_time(junk: Any) -> None:
    decoder = ActionDecoder(GAMES["doudizhu"])
    for _ in range(2):
        with pytest.raises(IllegalAction) as caught:
            decoder.decode(junk)
        assert caught.value.code == "bad_action"
    assert len(decoder) == 0


def test_the_cache_is_bounded_and_shared_per_game() -> None:
    decoder = ActionDecoder(GAMES["scopa"], max_entries=3)
    plays = _legal_plays("scopa")[:10]
    for plain in plays:
        decoder.decode(plain)
        assert len(decoder) <= 3
    assert decoder_for(GAMES["scopa"]) is decoder_for(GAMES["scopa"])
    assert decoder_for(GAMES["scopa"]) is not decoder_for(GAMES["schafkopf"])


_PLAIN = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**64 - 1)
    | st.floats(allow_nan=False)
    | st.text(max_size=8)
    | st.binary(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.lists(inner, max_size=4).map(tuple)
        | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=12,
)


@given(_PLAIN)
def test_the_key_is_msgpacks_own_bytes(data: Any) -> None:
    """The cache's key (ormsgpack) is what msgpack packs: what one tells apart, so does
    the other (``true`` and ``1``, ``1`` and ``1.0``, text and bytes)."""
    assert ormsgpack.packb(data) == msgpack.packb(data, use_bin_type=True)


def test_what_cannot_be_a_key_is_decoded_every_time() -> None:
    """Maps keyed by numbers or bytes are valid msgpack but no key: never cached."""
    decoder = ActionDecoder(GAMES["doudizhu"])
    for junk in ({1: "bid"}, {b"type": "bid"}, {"type": "bid", "value": {2: 1}}):
        with pytest.raises(IllegalAction) as caught:
            decoder.decode(junk)
        assert caught.value.code == "bad_action"
    assert len(decoder) == 0
