"""Decoded actions kept by their bytes: the same answers as the game's own decoder."""

from __future__ import annotations

import random
from typing import Any

import pytest

from engine.codec import to_plain
from engine.game import IllegalAction
from engine.registry import GAMES
from server.action_cache import ActionDecoder, decoder_for


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
