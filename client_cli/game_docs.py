"""The page ``docs/games/<game>.md``: a game's options, view, actions and events.

Built from the game's JSON Schema (:mod:`protocol.game_schema`) and from a
seeded game played by the ``random`` policy, so every example is a real
value; ``cardavia schema --game GAME --markdown`` prints it.  Each example
block is preceded by ``<!-- schema: PART -->`` naming the schema it fits
(a test validates them, so the page cannot drift from the engine).
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from typing import Any

from engine.codec import to_plain
from engine.game import Game
from engine.registry import GAMES, get_policy
from protocol.game_schema import EVENTS, game_schema

EXAMPLES: dict[str, tuple[str, int]] = {
    "scopa": ("easy", 7),
    "cicera": ("easy", 7),
    "doudizhu": ("random", 2),  # a deal that is redealt: every event kind shows
    "schafkopf": ("easy", 0),  # a Rufer whose partner becomes known
}
"""The policy every seat plays and the seed of each game's example."""
STEPS_INTO_PLAY = {"scopa": 5, "cicera": 9, "doudizhu": 4, "schafkopf": 6}
"""How many moves into the card play the example view is taken."""

_WIDTH = 88


@dataclass(frozen=True)
class Example:
    """Real values of one seeded game: a seat's view, a spectator's, actions, events."""

    seat: int
    view: dict[str, Any]
    spectator_view: dict[str, Any]
    actions: dict[str, dict[str, Any]]
    events: dict[str, dict[str, Any]]


def play_example(game_id: str) -> Example:
    """Play the game's example (:data:`EXAMPLES`); keep a view a few moves into the card
    play and one of every action type and event kind (the first met)."""
    game: Game[Any, Any, Any, Any] = GAMES[game_id]
    policy_name, seed = EXAMPLES[game_id]
    policy = get_policy(game_id, policy_name)
    rng = random.Random(seed)
    state = game.new_state(game.options(None), seed)
    events = {e.kind: e for e in reversed(game.start_events(state))}
    actions: dict[str, Any] = {}
    picked: tuple[int, Any, Any] | None = None
    moves_in_play = 0
    while not game.is_over(state):
        seat = game.to_act(state)[0]
        view = game.view(state, seat)
        legal = game.legal_actions(state, seat)
        for action in legal:
            actions.setdefault(type(action).kind, action)
        if getattr(view, "phase", "play") == "play":
            if moves_in_play == STEPS_INTO_PLAY[game_id] and picked is None:
                picked = (seat, view, game.view(state, None))
            moves_in_play += 1
        transition = game.apply(state, seat, policy.choose(view, legal, rng))
        for event in transition.events:
            events.setdefault(event.kind, event)
        state = transition.state
    if picked is None:  # pragma: no cover - the seeds in use reach the card play
        raise ValueError(f"{game_id} seed {seed} ended before the example position")
    seat, view, spectator = picked
    return Example(
        seat=seat,
        view=to_plain(view),
        spectator_view=to_plain(spectator),
        actions={k: to_plain(a) for k, a in actions.items()},
        events={k: {"kind": k, "data": to_plain(dict(e.data))} for k, e in events.items()},
    )


def pretty(value: Any, indent: int = 0) -> str:
    """JSON with one item per line, except short arrays and maps kept on one line."""
    flat = json.dumps(value, ensure_ascii=False)
    if len(flat) + indent <= _WIDTH or not isinstance(value, (list, dict)) or not value:
        return flat
    pad = " " * (indent + 2)
    if isinstance(value, list):
        items = [pad + pretty(v, indent + 2) for v in value]
        return "[\n" + ",\n".join(items) + "\n" + " " * indent + "]"
    lines = [f"{pad}{json.dumps(k)}: {pretty(v, indent + 2)}" for k, v in value.items()]
    return "{\n" + ",\n".join(lines) + "\n" + " " * indent + "}"


def type_text(schema: dict[str, Any]) -> str:
    """A short reading of a schema for the tables: ``card``, ``array of integer`` …"""
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[1]
        return "card" if name == "card" else f"[{name}](#type-{name.lower()})"
    if "const" in schema:
        return json.dumps(schema["const"])
    if "enum" in schema:
        return "one of " + ", ".join(f"`{json.dumps(e)}`" for e in schema["enum"])
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return " or ".join(type_text(s) for s in schema[key])
    kind = schema.get("type")
    if kind == "array":
        size = ""
        if "minItems" in schema and schema.get("maxItems") == schema["minItems"]:
            size = f"{schema['minItems']} × "
        item = type_text(schema.get("items") or {})
        distinct = ", distinct" if schema.get("uniqueItems") else ""
        return f"array ({size}{item}{distinct})"
    if kind == "object" and isinstance(schema.get("additionalProperties"), dict):
        return f"map of {type_text(schema['additionalProperties'])}"
    return str(kind or "any")


def _fields_table(schema: dict[str, Any], extra: dict[str, str] | None = None) -> list[str]:
    rows = ["| field | type |", "|---|---|"]
    required = set(schema.get("required", ()))
    for name, sub in schema["properties"].items():
        note = "" if name in required else " (may be absent)"
        rows.append(f"| `{name}` | {type_text(sub)}{note}{(extra or {}).get(name, '')} |")
    return rows


def _block(part: str, value: Any) -> list[str]:
    return [f"<!-- schema: {part} -->", "```json", pretty(value), "```"]


def markdown(game_id: str) -> str:
    """The documentation page of one game (see the module docstring)."""
    game = GAMES[game_id]
    doc = game_schema(game_id)
    defs = doc["$defs"]
    example = play_example(game_id)
    view_def = defs[game.view_type.__name__]
    out = [
        f"# {game.title}: options, view, actions and events",
        "",
        f"What a client of the game `{game_id}` receives and sends inside the messages of "
        "[the protocol](../protocol.md); the rules are in "
        f"[rules/{game_id}.md](../rules/{game_id}.md). The JSON Schema of all of it is "
        f"`cardavia schema --game {game_id}` (also under `games/{game_id}` in "
        "`cardavia schema`), generated from the engine's types. This page is generated by "
        f"`cardavia schema --game {game_id} --markdown` (examples from a game dealt from "
        f"seed {EXAMPLES[game_id][1]}, every seat played by the `{EXAMPLES[game_id][0]}` "
        "AI); a test checks its examples against the schema.",
        "",
        "Cards are two-character strings, RANK then SUIT ([cards](../rules/cards.md)); "
        "seats are numbers from 0; every map is closed (no other fields).",
        "",
        "## Options",
        "",
        "The `options` of `create` (all optional; each view echoes them in full).",
        "",
        "| field | type | default |",
        "|---|---|---|",
    ]
    for name, sub in defs["options"]["properties"].items():
        out.append(f"| `{name}` | {type_text(sub)} | `{json.dumps(sub['default'])}` |")
    out += [
        "",
        "## View",
        "",
        f"The `view` of `update` and `snapshot`. {view_def.get('description', '')} "
        "A spectator's view has `seat` null, an empty `hand` and no `legal` actions.",
        "",
        *_fields_table(view_def),
        "",
        f"Seat {example.seat}'s view, {STEPS_INTO_PLAY[game_id]} moves into the card play:",
        "",
        *_block("view", example.view),
        "",
        "A spectator's view of the same moment:",
        "",
        *_block("spectator_view", example.spectator_view),
        "",
        "## Actions",
        "",
        "The `action` of `act`: one of the view's `legal` entries, sent back unchanged. "
        "`type` tells them apart.",
    ]
    for action_type in game.action_types:
        sub = defs[action_type.__name__]
        kind = str(getattr(action_type, "kind", action_type.__name__))  # its tag (engine.codec)
        out += ["", f"### `{kind}`", "", sub.get("description", ""), ""]
        out += _fields_table(sub)
        if kind in example.actions:
            out += ["", *_block("action", example.actions[kind])]
    out += [
        "",
        "## Events",
        "",
        'Each entry of `update`\'s `events` is `{"kind": ..., "data": {...}}`; a client '
        "sees only the events meant for it.",
        "",
        "| kind | data | meaning |",
        "|---|---|---|",
    ]
    for kind in EVENTS[game_id]:
        sub = defs[f"event_{kind}"]
        data = sub["properties"]["data"]
        fields = ", ".join(
            f"`{n}`" + ("?" if n not in data["required"] else "") for n in data["properties"]
        )
        out.append(f"| `{kind}` | {fields} | {sub['description']} |")
    out += ["", "Field types:"]
    for kind in EVENTS[game_id]:
        data = defs[f"event_{kind}"]["properties"]["data"]
        out += ["", f"### `{kind}`", "", *_fields_table(data)]
        if kind in example.events:
            out += ["", *_block("event", example.events[kind])]
    nested = [
        name
        for name in defs
        if name[0].isupper() and name != game.view_type.__name__ and "properties" in defs[name]
    ]
    out += ["", "## Types", "", "The maps named in the tables above."]
    for name in nested:
        sub = defs[name]
        out += ["", f"### Type `{name}`", "", sub.get("description", ""), "", *_fields_table(sub)]
    return "\n".join(out) + "\n"
