"""``hint``: a legal move from the player's own view; hidden cards cannot change it."""

from __future__ import annotations

import random

import pytest

from client_cli.hint import hint
from engine.codec import to_plain
from engine.registry import GAMES, get_game


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_hint_is_legal_and_blind_to_hidden_cards(game_id: str) -> None:
    game = get_game(game_id)
    rng = random.Random(7)
    state = game.new_state(game.options(), seed=11)
    checked = 0
    for _ in range(10):
        if game.is_over(state):
            break
        seat = game.to_act(state)[0]
        view = game.view(state, seat)
        plain = to_plain(view)
        index, why = hint(game_id, plain)
        assert 0 <= index < len(plain["legal"]) and why
        # the same view over other hidden cards (a world the seat cannot tell apart)
        other = game.sample_world(view, random.Random(checked))
        assert to_plain(game.view(other, seat)) == plain
        assert hint(game_id, to_plain(game.view(other, seat))) == (index, why)
        checked += 1
        legal = list(view.legal)
        state = game.apply(state, seat, legal[rng.randrange(len(legal))]).state
    assert checked >= 5


def test_the_hint_is_told_who_sits_at_the_table(monkeypatch: pytest.MonkeyPatch) -> None:
    """As the server tells its own AI (engine.policy.seated): the lobby's seat levels."""
    from engine import registry

    asked: list[tuple[str | None, ...]] = []
    real = registry.get_policy

    def told(game_id: str, name: str, peers: tuple[str | None, ...] = ()) -> object:
        asked.append(peers)
        return real(game_id, name, peers)

    monkeypatch.setattr(registry, "get_policy", told)
    game = get_game("doudizhu")
    state = game.new_state(game.options(), seed=3)
    plain = to_plain(game.view(state, game.to_act(state)[0]))
    hint("doudizhu", plain, peers=(None, "normal", "hard"))
    hint("doudizhu", plain)
    assert asked == [(None, "normal", "hard"), ()]
