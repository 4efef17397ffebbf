"""Dou Dizhu in the terminal: the cards a player types are the cards played.

The server lists each play once in one choice of suits; any other held cards
of the same ranks are as legal (rules/doudizhu.md, Cards, Decision), so the
typed cards, not the listed ones, go to the server.
"""

from __future__ import annotations

from typing import Any

import pytest

from client_cli.moves import Pick, Refuse, Send, choose_move
from client_cli.render import Seats, renderer_for
from engine.codec import to_plain
from engine.doudizhu.state import Play
from tests.engine.doudizhu.helpers import GAME, position

HAND = "5H 5D 5C 9S 9D KH"


def plain_view() -> dict[str, Any]:
    """Seat 0's view, as the server sends it, leading with ``HAND``."""
    return to_plain(GAME.view(position((HAND, "KS", "QS")), 0))  # type: ignore[no-any-return]


def typed(text: str, view: dict[str, Any]) -> dict[str, Any] | str:
    """The move the terminal client sends for ``text`` (or why not), as ``move`` does."""
    render = renderer_for("doudizhu", Seats(me=0), "french")
    choice = choose_move(text, list(view["legal"]), render, view)
    if isinstance(choice, Pick):
        return dict(view["legal"][choice.index])
    if isinstance(choice, Send):
        return dict(choice.action)
    assert isinstance(choice, Refuse), choice
    return choice.message


@pytest.mark.parametrize(
    ("text", "combo", "cards"),
    [
        ("5d 5c", "pair", {"5D", "5C"}),
        ("5C 5H", "pair", {"5H", "5C"}),
        ("5H 5D", "pair", {"5H", "5D"}),  # the listed suits
        ("5D", "single", {"5D"}),
        ("5c, 5d, 5h, 9d", "triple_single", {"5H", "5D", "5C", "9D"}),
        ("5C 5D 5H 9D 9S", "triple_pair", {"5H", "5D", "5C", "9S", "9D"}),
    ],
)
def test_typed_cards_of_held_suits_are_sent_as_typed(
    text: str, combo: str, cards: set[str]
) -> None:
    view = plain_view()
    action = typed(text, view)
    assert isinstance(action, dict), action
    assert action["type"] == "play" and action["combo"] == combo
    assert set(action["cards"]) == cards
    # the engine takes exactly those cards from the hand
    decoded = GAME.decode_action(action)
    assert isinstance(decoded, Play)
    after = GAME.apply(position((HAND, "KS", "QS")), 0, decoded).state
    left = set(to_plain(GAME.view(after, 0).hand))
    assert left == set(HAND.split()) - cards


def test_numbers_and_words_pick_the_listed_move() -> None:
    view = plain_view()
    assert typed("1", view) == view["legal"][0]
    pair = next(i for i, a in enumerate(view["legal"]) if a.get("combo") == "pair")
    assert typed(str(pair + 1), view) == view["legal"][pair]


def test_cards_not_in_hand_are_not_a_move() -> None:
    view = plain_view()
    for text in ("5S 5H", "5S", "5D XX"):
        assert isinstance(typed(text, view), str), text


def test_other_games_pick_the_listed_move_and_let_the_server_judge_the_rest() -> None:
    render = renderer_for("scopa", Seats(me=0), "napoletane")
    legal = [{"type": "play", "card": "7D", "capture": []}]
    view = {"hand": ["7D", "7C"], "legal": legal}
    assert choose_move("7D", legal, render, view) == Pick(0)
    # an unlisted held card goes to the server, whose refusal names the rule
    assert choose_move("7C", legal, render, view) == Send(
        {"type": "play", "card": "7C", "capture": []}
    )


def test_pass_keeps_one_number() -> None:
    """Pass is 0 beside plays as alone and in the auction (it was ``1)`` beside plays
    and ``0)`` alone); the plays count from 1, and 0 picks the pass everywhere."""
    from tests.client_cli.test_play import playout

    render = renderer_for("doudizhu", Seats(me=0), "french")
    seen: set[str] = set()
    for view, _ in playout("doudizhu", 3):
        legal = list(view.get("legal") or [])
        if not any(a["type"] == "pass" for a in legal):
            continue
        keys = render.move_keys(legal)
        assert len(set(keys)) == len(keys)
        for key, action in zip(keys, legal, strict=True):
            if action["type"] == "pass":
                assert key == "0"
                assert "0) " + render.action(action) in render.move_labels(legal)
        plays = [k for k, a in zip(keys, legal, strict=True) if a["type"] == "play"]
        assert plays == [str(i) for i in range(1, len(plays) + 1)]
        assert choose_move("0", legal, render, view) == Pick(keys.index("0"))
        seen.add("alone" if len(legal) == 1 else view["phase"])
    assert {"alone", "play", "bidding"} <= seen


def test_moves_pair_lists_pairs_only() -> None:
    """``moves pair`` names a combination: the pairs, not the pair sequences, triples
    with a pair or four with two pairs (whose names hold the word)."""
    from client_cli.lang import language
    from tests.client_cli.test_play import playout

    view = next(
        v
        for v, _ in playout("doudizhu", 3)
        if {"pair", "triple_pair"} <= {a.get("combo") for a in v.get("legal") or []}
    )
    legal = list(view["legal"])
    for code, word in (("en", "pair"), ("en", "Pair"), ("de", "paar"), ("en", "pair sequence")):
        render = renderer_for("doudizhu", Seats(me=0, lang=language(code)), "french")
        combo = "pair_sequence" if " " in word else "pair"
        labels = render.move_labels(legal)
        listed = [
            lab for a, lab in zip(legal, labels, strict=True) if render.mentions(a, lab, word)
        ]
        wanted = [lab for a, lab in zip(legal, labels, strict=True) if a.get("combo") == combo]
        assert listed == wanted
    render = renderer_for("doudizhu", Seats(me=0), "french")
    assert render.mentions(legal[0], "1) Pair 5H 5D", "5h")  # other words: as before
