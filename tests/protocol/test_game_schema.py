"""Each game's JSON Schema against real views, actions and events of random games."""

from __future__ import annotations

import copy
import json
import random
import re
import subprocess
import sys
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any, get_args

import pytest

from client_cli.game_docs import markdown
from engine.cards import GERMAN_32
from engine.codec import to_plain
from engine.game import Game
from engine.registry import GAMES, get_policy
from engine.schafkopf.state import Announce, ContractKind, Pass, SchafkopfDeal
from protocol.game_schema import EVENTS, all_game_schemas, game_schema
from protocol.schema import json_schema
from tests.protocol.schema_check import Invalid, validate

ROOT = Path(__file__).resolve().parents[2]
SEEDS = range(4)


@cache
def schema(game_id: str) -> dict[str, Any]:
    return game_schema(game_id)


def check(game_id: str, part: str, value: Any) -> None:
    doc = schema(game_id)
    validate(value, doc[part], doc, f"{game_id}.{part}")


def playout(game_id: str, seed: int) -> Iterator[tuple[str, Any]]:
    """Every view (each seat's and the spectator's), legal action and event of one random game."""
    game: Game[Any, Any, Any, Any] = GAMES[game_id]
    policy = get_policy(game_id, "random")
    rng = random.Random(seed)
    options = game.options({"deals": 2} if game_id == "schafkopf" else None)
    seats = range(game.num_seats(options))
    state = game.new_state(options, seed)
    events = list(game.start_events(state))
    while True:
        for event in events:
            yield "event", {"kind": event.kind, "data": to_plain(dict(event.data))}
        for seat in seats:
            yield "view", to_plain(game.view(state, seat))
        yield "spectator_view", to_plain(game.view(state, None))
        if game.is_over(state):
            return
        seat = game.to_act(state)[0]
        legal = game.legal_actions(state, seat)
        for action in legal:
            yield "action", to_plain(action)
        action = policy.choose(game.view(state, seat), legal, rng)
        transition = game.apply(state, seat, action)
        state, events = transition.state, list(transition.events)


@pytest.mark.parametrize("game_id", list(GAMES))
def test_random_games_fit_the_schema(game_id: str) -> None:
    kinds: set[str] = set()
    views: list[dict[str, Any]] = []
    for seed in SEEDS:
        for part, value in playout(game_id, seed):
            check(game_id, part, value)
            if part == "event":
                kinds.add(value["kind"])
            elif part == "view":
                views.append(value)
    # the playouts reach the interesting phases (else the test proves little)
    if game_id == "doudizhu":
        assert {"bid", "pass", "landlord", "play", "lead", "deal_over"} <= kinds
        assert {v["phase"] for v in views} == {"bidding", "play", "over"}
    if game_id == "schafkopf":
        assert {"bid", "contract", "trick", "deal_scored", "game_over"} <= kinds
        assert {v["phase"] for v in views} >= {"bidding", "play", "over"}
    assert {"deal", "hand", "play"} <= kinds


def test_schafkopf_contracts_fit_the_schema() -> None:
    """Every contract kind, announced by the first seat that may and played out at random."""
    game = GAMES["schafkopf"]
    contracts = get_args(ContractKind)
    seen: set[str] = set()
    for seed in range(4 * len(contracts)):
        wanted = contracts[seed % len(contracts)]
        rng = random.Random(seed)
        options = game.options({"deals": 1})
        state = game.new_state(options, seed)
        if wanted == "sie":  # four Ober and four Unter in one hand: too rare to be dealt
            sie = GERMAN_32.parse_many("OE OG OH OS UE UG UH US")
            rest = [c for c in GERMAN_32.cards if c not in sie]
            rng.shuffle(rest)
            hands = (sie, *(tuple(rest[i * 8 : i * 8 + 8]) for i in range(3)))
            state = game.from_deal(options, SchafkopfDeal(dealer=seed % 4, hands=hands))
        while not game.is_over(state):
            seat = game.to_act(state)[0]
            legal = game.legal_actions(state, seat)
            announce = [a for a in legal if isinstance(a, Announce) and a.contract == wanted]
            passes = [a for a in legal if isinstance(a, Pass)]
            action = rng.choice(announce or passes or list(legal))
            transition = game.apply(state, seat, action)
            for event in transition.events:
                check(
                    "schafkopf", "event", {"kind": event.kind, "data": to_plain(dict(event.data))}
                )
            state = transition.state
            for who in (*range(4), None):
                check(
                    "schafkopf",
                    "view" if who is not None else "spectator_view",
                    to_plain(game.view(state, who)),
                )
            if state.contract is not None:
                seen.add(state.contract.kind)
    assert seen == set(contracts)


@pytest.mark.parametrize("game_id", list(GAMES))
def test_every_event_kind_is_declared_and_options_validate(game_id: str) -> None:
    game = GAMES[game_id]
    check(game_id, "options", {})
    check(game_id, "options", to_plain(game.options(None)))
    with pytest.raises(Invalid):
        check(game_id, "options", {"pattern": "no_such_pattern"})
    with pytest.raises(Invalid):
        check(game_id, "options", {"colour": "red"})
    refs = [r["$ref"] for r in schema(game_id)["$defs"]["event"]["oneOf"]]
    assert refs == [f"#/$defs/event_{kind}" for kind in EVENTS[game_id]]


@pytest.mark.parametrize("game_id", list(GAMES))
def test_wrong_values_fail(game_id: str) -> None:
    game = GAMES[game_id]
    state = game.new_state(game.options(None), 1)
    seat = game.to_act(state)[0]
    view = to_plain(game.view(state, seat))
    check(game_id, "view", view)
    mutations = [
        ("seat", "0"),  # a string, not an integer
        ("hand", [*view["hand"], "ZZ"]),  # not a card of the deck
        ("to_act", 0),  # a number, not a list
        ("legal", [{"type": "nonsense"}]),
        ("secret", 1),  # unknown field
    ]
    for field, wrong in mutations:
        bad = copy.deepcopy(view)
        bad[field] = wrong
        with pytest.raises(Invalid):
            check(game_id, "view", bad)
    missing = copy.deepcopy(view)
    del missing["hand"]
    with pytest.raises(Invalid):
        check(game_id, "view", missing)
    with pytest.raises(Invalid):  # a seat's view is not a spectator's
        check(game_id, "spectator_view", view)
    action = to_plain(game.legal_actions(state, seat)[0])
    with pytest.raises(Invalid):
        check(game_id, "action", {**action, "type": "nonsense"})
    event = {"kind": "hand", "data": {"seat": seat, "hand": view["hand"]}}
    check(game_id, "event", event)
    with pytest.raises(Invalid):
        check(game_id, "event", {**event, "data": {"seat": True, "hand": view["hand"]}})
    with pytest.raises(Invalid):
        check(game_id, "event", {"kind": "no_such_event", "data": {}})


def test_protocol_schema_embeds_every_game() -> None:
    doc = json_schema()
    assert set(doc["games"]) == set(GAMES)
    assert "Act" in doc["client"]["$defs"] and "Update" in doc["server"]["$defs"]
    game = GAMES["scopa"]
    state = game.new_state(game.options(None), 3)
    scopa = doc["games"]["scopa"]
    validate(to_plain(game.view(state, 0)), scopa["view"], doc)  # refs resolve from the root
    assert all_game_schemas("#/games")["scopa"]["view"] == scopa["view"]
    games = all_game_schemas("#")  # what cardavia schema --games prints
    validate(to_plain(game.view(state, None)), games["scopa"]["spectator_view"], games)


def test_schema_command_prints_one_game() -> None:
    code = (
        "import argparse; from client_cli.schema import run; "
        "run(argparse.Namespace(direction='both', game='cicera', games=False, indent=0))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    assert json.loads(out) == json.loads(json.dumps(game_schema("cicera")))


JSON_BLOCK = re.compile(r"<!-- schema: (\w+) -->\n```json\n(.*?)\n```", re.S)


@pytest.mark.parametrize("fresh", [False, True], ids=["committed", "generated"])
@pytest.mark.parametrize("game_id", list(GAMES))
def test_doc_examples_fit_the_schema(game_id: str, fresh: bool) -> None:
    """The examples of docs/games/GAME.md, as committed and as generated now."""
    if fresh:
        text = markdown(game_id)
    else:
        text = (ROOT / "docs" / "games" / f"{game_id}.md").read_text(encoding="utf-8")
    blocks = JSON_BLOCK.findall(text)
    assert {part for part, _ in blocks} >= {"view", "spectator_view", "action", "event"}
    for part, body in blocks:
        check(game_id, part, json.loads(body))
    for kind in EVENTS[game_id]:
        assert f"### `{kind}`" in text
