"""A refused move says why in the player's language, naming cards, suits and
combinations as the screen names them (issue 53: German printed only "Dieser Zug ist
nicht erlaubt.", English "you must follow G")."""

from __future__ import annotations

import asyncio
import random
import re
import string
from collections.abc import Iterator
from typing import Any

import pytest

from client_cli.lang import LANGUAGES, language
from client_cli.render import Seats, renderer_for
from engine.codec import to_plain
from engine.game import IllegalAction
from engine.reasons import Why
from engine.registry import GAMES
from protocol.server_messages import Reason
from server.tables.core import wire_reason
from tests.client_cli.names import card_name, suit_names

SAMPLE: dict[str, Any] = {
    "card": "7D",
    "called_ace": "AG",
    "cards": ["3S", "4C"],
    "last_cards": ["5S", "5H"],
    "choices": ["3S 4C", "7H"],
    "suit": "G",
    "combo": "pair",
    "last_combo": "pair",
    "contract": "rufer",
    "above": "wenz",
    "value": 7,
    "bid": 2,
    "total": 6,
    "seat": 1,
    "action": "Bid",
}


@pytest.mark.parametrize("code", LANGUAGES)
def test_every_reason_has_a_sentence_in_every_language(code: str) -> None:
    """Each Why of the engine has its own sentence (not English standing in), naming
    only parameters the engine gives (engine.reasons)."""
    lang = language(code)
    english = language("en")
    for why in Why:
        text = lang.ui["reasons"].get(str(why))
        assert isinstance(text, str) and text, (code, why)
        assert code == "en" or text != english.reason(why), (code, why)  # not English
        names = {name for _, name, _, _ in string.Formatter().parse(text) if name}
        assert names <= set(SAMPLE), (code, why, names)
        for game in GAMES:
            render = renderer_for(game, Seats(me=0, lang=lang))
            said = render.reason(str(why), {k: SAMPLE[k] for k in names})
            assert said and "{" not in said, (code, why, game)


def refusals(game_id: str, seed: int) -> Iterator[tuple[dict[str, Any], IllegalAction]]:
    """(the refused seat's view, the refusal) for moves a player might try along a
    random game: cards not legal now, captures of the wrong cards, low bids."""
    game = GAMES[game_id]
    state = game.new_state(game.options(), seed)
    rng = random.Random(seed)
    while not game.is_over(state):
        seat = game.to_act(state)[0]
        view = to_plain(game.view(state, seat))
        for action in tries(view):
            try:
                game.apply(state, seat, game.decode_action(action))
            except IllegalAction as exc:
                yield view, exc
        state = game.apply(state, seat, rng.choice(game.legal_actions(state, seat))).state


def tries(view: dict[str, Any]) -> Iterator[dict[str, Any]]:
    hand = list(view.get("hand") or [])
    table = list(view.get("table") or [])
    for card in hand:
        yield {"type": "play", "card": card, "capture": []}
        yield from ({"type": "play", "card": card, "capture": [t]} for t in table)
        yield {"type": "play", "card": card}
        yield {"type": "play", "cards": [card], "combo": "single"}
    yield {"type": "bid", "value": 1}


def codes_of(value: object) -> tuple[str, ...]:
    assert isinstance(value, tuple)
    return value


def first(game_id: str, why: Why) -> tuple[dict[str, Any], IllegalAction]:
    for seed in range(1, 40):
        for view, exc in refusals(game_id, seed):
            if exc.reason is not None and exc.reason.why == why:
                return view, exc
    raise AssertionError(f"no {why} refusal in {game_id}")


def said(game_id: str, lang_code: str, view: dict[str, Any], exc: IllegalAction) -> str:
    """The refusal as the play session shows it, from the reason the server sends."""
    reason = wire_reason(exc.reason)
    assert isinstance(reason, Reason)
    Reason.model_validate(reason.model_dump())  # what goes on the wire validates
    render = renderer_for(game_id, Seats(me=view["seat"], lang=language(lang_code)))
    render.set_pattern(view.get("options"))
    text = render.reason(reason.key, reason.params)
    assert text is not None
    return text


@pytest.mark.parametrize("lang_code", ["de", "it"])
def test_schafkopf_names_the_suit_to_follow_as_the_screen_does(lang_code: str) -> None:
    view, exc = first("schafkopf", Why.MUST_FOLLOW_SUIT)
    assert exc.reason is not None
    suit = str(exc.reason.params["suit"])
    pattern = view["options"]["pattern"]
    name = dict(zip("EGHS", suit_names(lang_code, pattern), strict=True))[suit]
    text = said("schafkopf", lang_code, view, exc)
    assert name in text and f" {suit} " not in f" {text} "
    sentence = {"de": f"du musst {name} bedienen", "it": f"devi rispondere a {name}"}
    assert sentence[lang_code] in text
    renderer = renderer_for("schafkopf", Seats(me=0, lang=language(lang_code)), pattern)
    assert renderer.group_name(suit) == name  # the hand's group is named the same


@pytest.mark.parametrize("lang_code", ["de", "it"])
def test_scopa_names_the_cards_it_must_capture(lang_code: str) -> None:
    view, exc = first("scopa", Why.MUST_CAPTURE)
    assert exc.reason is not None
    pattern = view["options"]["pattern"]
    card = str(exc.reason.params["card"])
    text = said("scopa", lang_code, view, exc)
    assert card_name(lang_code, pattern, card) in text
    for group in codes_of(exc.reason.params["choices"]):
        assert all(card_name(lang_code, pattern, c) in text for c in str(group).split())
    word = {"de": "Nehmen ist Pflicht", "it": "la presa è obbligatoria"}[lang_code]
    assert word in text


@pytest.mark.parametrize("lang_code", ["de", "it"])
def test_cicera_names_the_card_of_another_rank(lang_code: str) -> None:
    view, exc = first("cicera", Why.RANK_MISMATCH)
    assert exc.reason is not None
    pattern = view["options"]["pattern"]
    text = said("cicera", lang_code, view, exc)
    assert card_name(lang_code, pattern, str(exc.reason.params["card"])) in text
    (other,) = codes_of(exc.reason.params["cards"])
    assert card_name(lang_code, pattern, str(other)) in text
    assert not re.search(r"\b[2-9AKQJFCR][SHDCBEG]\b(?!\))", text)  # no bare code


@pytest.mark.parametrize("lang_code", ["de", "it"])
def test_dou_dizhu_names_the_combinations(lang_code: str) -> None:
    view, exc = first("doudizhu", Why.DOES_NOT_BEAT)
    assert exc.reason is not None
    text = said("doudizhu", lang_code, view, exc)
    terms = language(lang_code).shared["terms"]["doudizhu"]
    assert terms[str(exc.reason.params["last_combo"])] in text
    assert all(c in text for c in codes_of(exc.reason.params["last_cards"]))
    assert {"de": "schlägt nicht", "it": "non batte"}[lang_code] in text


def test_a_reason_without_a_sentence_or_with_other_parameters_is_none() -> None:
    """A newer server's reason: the session falls back to the server's message."""
    render = renderer_for("schafkopf", Seats(me=0, lang=language("de")), "bavarian")
    assert render.reason("no_such_reason", {}) is None
    assert render.reason("must_follow_suit", {}) is None
    assert (
        render.reason("must_follow_suit", {"suit": "G"}) == "du musst Gras bedienen, wenn du kannst"
    )


def test_the_server_sends_the_reason_to_clients_that_ask() -> None:
    """An illegal act on a real server: with the ``reasons`` feature (the client's
    default) the error carries the reason; a client without it gets the error as
    before (an older client refuses fields it does not know)."""
    from client_cli.client import Client, ServerError
    from tests.client_cli.live_server import live_server

    async def refused(url: str) -> list[Any]:
        ann = await Client.connect(url, "Ann")
        bob = await Client.connect(url, "Bob", features=())
        table = (await ann.create_table("scopa", {"seat": 0})).table.id
        await bob.join(table, 1)
        out: list[Any] = []
        for _ in range(2):
            for me in (ann, bob):
                if len(out) < 2 and me.tables[table].legal:
                    hand = me.tables[table].view["hand"]  # type: ignore[index]
                    gone = next(
                        f"{r}{s}" for s in "SHDC" for r in "A234567JQK" if f"{r}{s}" not in hand
                    )
                    bad = {"type": "play", "card": gone, "capture": []}
                    try:
                        await me.act(table, bad)
                    except ServerError as exc:
                        out.append((me is ann, exc))
                    await me.act(table, me.tables[table].legal[0])
                await asyncio.sleep(0.2)
        await ann.close()
        await bob.close()
        return out

    with live_server() as srv:
        results = srv.call(refused)
    assert len(results) == 2
    for asked, exc in results:
        assert exc.code == "illegal_action" and exc.detail == "not_in_hand"
        assert "not in your hand" in exc.message  # the English message stays
        if asked:
            assert exc.reason is not None and exc.reason.key == "not_in_hand"
            assert len(exc.reason.params["cards"]) == 1
        else:
            assert exc.reason is None
