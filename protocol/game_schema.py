"""JSON Schema of each game's options, view, actions and events, from the engine's types.

The schema describes exactly what :func:`engine.codec.to_plain` puts on the
wire: a card is its two-character text (one of the game deck's cards), a
tuple or frozenset is an array (a frozenset's items are distinct), a
``Literal`` or enum is one of its values, a dataclass is a closed map of its
fields (all present), and a dataclass with a ``kind`` class variable carries
``"type": kind`` (so a game's actions are a ``oneOf`` told apart by ``type``).

Views and actions are typed in the engine (``Game.view_type``,
``Game.action_types``, ``Game.options_type``) and read here with
:func:`typing.get_type_hints`.  An event's ``data`` is a plain mapping in the
engine, so :data:`EVENTS` declares each game's event payloads with engine
types; tests check every declaration against the events of many random games.

A game's document (:func:`game_schema`) has ``options`` (what ``create``
accepts: every field optional), ``view`` (a seat's view), ``spectator_view``,
``action`` and ``event`` (the wire form ``{"kind": ..., "data": {...}}``),
each a schema whose ``$ref`` point into the document's ``$defs``.
"""

from __future__ import annotations

import dataclasses
import enum
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, Union, get_args, get_origin

from engine.cards import Card, patterns_for
from engine.cicera.state import BONUS_NAMES, CiceraScore
from engine.doudizhu.combos import Combo
from engine.game import Game
from engine.registry import GAMES
from engine.schafkopf.state import ContractKind, DealRecord
from engine.scopa.state import DealScore

Schema = dict[str, Any]

DIALECT = "https://json-schema.org/draft/2020-12/schema"

Hand = tuple[Card, ...]
Cards = tuple[Card, ...]
Pair = tuple[int, int]
Four = tuple[int, int, int, int]
Bonus = Literal["scua", "picada", "simili", "quadriglia"]
assert get_args(Bonus) == BONUS_NAMES


@dataclass(frozen=True)
class EventSpec:
    """One kind of event: its payload's fields (plain engine types) and its audience.

    ``optional`` names fields that some events of this kind leave out.
    ``private`` events go to one seat only (the ``seat`` field).
    """

    doc: str
    fields: Mapping[str, Any]
    optional: frozenset[str] = frozenset()
    private: bool = False


_HAND = EventSpec(
    "A seat's own cards (after each deal, and in Scopa each refill).",
    {"seat": int, "hand": Hand},
    private=True,
)

EVENTS: Mapping[str, Mapping[str, EventSpec]] = {
    "scopa": {
        "deal": EventSpec(
            "A new deal: the four table cards, the hand sizes and the stock left.",
            {
                "deal_no": int,
                "dealer": int,
                "table": Cards,
                "hand_counts": Pair,
                "stock_count": int,
            },
        ),
        "hand": _HAND,
        "play": EventSpec(
            "A seat played a card; `captured` is empty when it was laid on the table.",
            {"seat": int, "card": Card, "captured": Cards, "scopa": bool},
        ),
        "refill": EventSpec(
            "Both hands were dealt three more cards from the stock.",
            {"stock_count": int, "hand_counts": Pair},
        ),
        "leftover": EventSpec(
            "At the end of a deal the table cards went to the last seat that captured.",
            {"seat": int, "cards": Cards},
        ),
        "deal_scored": EventSpec(
            "The deal's scoring and the match totals after it.",
            {"deal_no": int, "score": DealScore, "totals": Pair},
        ),
        "match_over": EventSpec(
            "A seat reached the target: the match is over.",
            {"winner": int, "totals": Pair},
        ),
    },
    "cicera": {
        "deal": EventSpec(
            "The deal: dealer, the first seat to play, the table and the hand sizes.",
            {"dealer": int, "first": int, "table": Cards, "hand_counts": Four},
        ),
        "hand": _HAND,
        "play": EventSpec(
            "A seat played a card, captured `captured` (empty: placed) and earned `bonuses`.",
            {"seat": int, "card": Card, "captured": Cards, "bonuses": tuple[Bonus, ...]},
        ),
        "unclaimed": EventSpec(
            "Nobody captured all deal: the table cards stay unclaimed.", {"cards": Cards}
        ),
        "leftover": EventSpec(
            "The table cards went to the team that captured last.",
            {"team": int, "cards": Cards},
        ),
        "deal_scored": EventSpec("The deal's scoring; the game is over.", {"score": CiceraScore}),
    },
    "doudizhu": {
        "deal": EventSpec(
            "The deal: hand sizes, the bottom's size and who bids first.",
            {
                "redeals": int,
                "first_bidder": int,
                "hand_counts": tuple[int, int, int],
                "bottom_count": int,
            },
        ),
        "redeal": EventSpec(
            "Everybody passed: the cards were dealt again (fields as in `deal`).",
            {
                "redeals": int,
                "first_bidder": int,
                "hand_counts": tuple[int, int, int],
                "bottom_count": int,
            },
        ),
        "hand": _HAND,
        "bid": EventSpec("A seat bid 1, 2 or 3.", {"seat": int, "bid": int}),
        "pass": EventSpec(
            "A seat passed: in the auction (`bid` is 0) or on a trick (no `bid`).",
            {"seat": int, "bid": Literal[0]},
            optional=frozenset({"bid"}),
        ),
        "landlord": EventSpec(
            "The auction is over: the landlord, the winning bid and the bottom cards taken.",
            {"seat": int, "bid": int, "bottom": Cards},
        ),
        "play": EventSpec(
            "A seat played `cards` as the combination `combo`.",
            {"seat": int, "cards": frozenset[Card], "combo": Combo},
        ),
        "lead": EventSpec("Two passes: `seat` leads a new trick.", {"seat": int}),
        "deal_over": EventSpec(
            "A hand is empty: the deal's result (`scores` per seat, zero-sum).",
            {
                "scores": tuple[int, int, int],
                "landlord": int,
                "landlord_won": bool,
                "farmers_won": bool,
                "bid": int,
                "multiplier": int,
                "spring": bool,
                "reverse_spring": bool,
                "bombs": int,
                "redeals": int,
                "landlord_points": int,
                "farmer_points": int,
            },
        ),
    },
    "schafkopf": {
        "deal": EventSpec("A new deal and its dealer.", {"deal_no": int, "dealer": int}),
        "hand": _HAND,
        "bid": EventSpec(
            "A seat's word in the bidding: a contract (and suit) or `null` for a pass.",
            {"seat": int, "contract": ContractKind | None, "suit": str | None},
        ),
        "contract": EventSpec(
            "The bidding is over: the contract played and its declarer.",
            {"declarer": int, "contract": ContractKind, "suit": str | None},
        ),
        "passed_out": EventSpec("Everybody passed: the deal is void.", {"deal_no": int}),
        "play": EventSpec("A seat played a card to the trick.", {"seat": int, "card": Card}),
        "partner_known": EventSpec(
            "The Rufer partner is now public.",
            {"seat": int, "how": Literal["called_ace_played", "ran_away"]},
        ),
        "trick": EventSpec(
            "A trick is complete: its cards from the leader, the winner and its card points.",
            {"leader": int, "cards": tuple[Card, Card, Card, Card], "winner": int, "points": int},
        ),
        "deal_scored": EventSpec(
            "The deal's outcome and everybody's totals after it.",
            {"record": DealRecord, "totals": Four},
        ),
        "game_over": EventSpec("The last deal is played: final totals.", {"totals": Four}),
    },
}
"""Each game's events by ``kind`` (engine/*/game.py builds them)."""


class SchemaError(TypeError):
    """An engine type that has no JSON Schema here (a new kind of field)."""


class _Builder:
    """Turns engine types into schemas, collecting the dataclasses' schemas in ``defs``."""

    def __init__(self, game: Game[Any, Any, Any, Any], ref_prefix: str) -> None:
        self.game = game
        self.ref_prefix = ref_prefix
        self.defs: dict[str, Schema] = {}
        self._owners: dict[str, type] = {}

    def ref(self, name: str) -> Schema:
        """A reference to the def ``name`` of this document."""
        return {"$ref": self.ref_prefix + name}

    def of(self, tp: Any) -> Schema:
        """The schema of values of type ``tp`` as ``to_plain`` writes them."""
        if tp is Any or tp is object:
            return {}
        if tp is type(None):
            return {"type": "null"}
        if tp is bool:
            return {"type": "boolean"}
        if tp is int:
            return {"type": "integer"}
        if tp is float:
            return {"type": "number"}
        if tp is str:
            return {"type": "string"}
        if tp is Card:
            return self.ref("card")
        if isinstance(tp, type) and issubclass(tp, enum.Enum):
            return {"enum": [m.value for m in tp]}
        if isinstance(tp, type) and dataclasses.is_dataclass(tp):
            return self.dataclass(tp)
        origin, args = get_origin(tp), get_args(tp)
        if origin is Literal:
            return {"const": args[0]} if len(args) == 1 else {"enum": list(args)}
        if origin in (Union, types.UnionType):
            return self.union(args)
        if origin is tuple:
            if len(args) == 2 and args[1] is Ellipsis:
                return {"type": "array", "items": self.of(args[0])}
            if len(set(args)) == 1:
                n = len(args)
                return {"type": "array", "items": self.of(args[0]), "minItems": n, "maxItems": n}
            return {
                "type": "array",
                "prefixItems": [self.of(a) for a in args],
                "items": False,
                "minItems": len(args),
            }
        if origin in (frozenset, set):
            return {"type": "array", "items": self.of(args[0]), "uniqueItems": True}
        if origin in (dict, Mapping) and args and args[0] is str:
            return {"type": "object", "additionalProperties": self.of(args[1])}
        raise SchemaError(f"no JSON Schema for {tp!r}")

    def union(self, args: tuple[Any, ...]) -> Schema:
        """A union: its tagged dataclasses as one ``oneOf`` (by ``type``), the rest beside."""
        tagged = [a for a in args if isinstance(getattr(a, "kind", None), str)]
        rest = [a for a in args if a not in tagged]
        options = [self.of(a) for a in tagged]
        if len(tagged) > 1:  # told apart by "type", as engine.codec decodes them
            options = [{"oneOf": options}]
        options += [self.of(a) for a in rest]
        return options[0] if len(options) == 1 else {"anyOf": options}

    def dataclass(self, cls: type) -> Schema:
        """A reference to the def of ``cls`` (built on first use, named after the class)."""
        name = cls.__name__
        owner = self._owners.setdefault(name, cls)
        if owner is not cls:
            raise SchemaError(f"two types named {name} in one game ({owner!r}, {cls!r})")
        if name not in self.defs:
            self.defs[name] = {}  # a placeholder while the fields are built (recursion)
            self.defs[name] = self.closed_object(
                _wire_fields(cls), doc=_doc(cls), tag=getattr(cls, "kind", None)
            )
            if cls is self.game.options_type:
                self.defs[name]["properties"]["pattern"] = self.pattern()
        return self.ref(name)

    def closed_object(
        self,
        fields: Mapping[str, Any],
        doc: str = "",
        tag: object = None,
        optional: frozenset[str] = frozenset(),
    ) -> Schema:
        """A map with exactly these fields (``type``: ``tag`` first, if any)."""
        properties: Schema = {}
        if isinstance(tag, str):
            properties["type"] = {"const": tag}
        for name, tp in fields.items():
            properties[name] = self.of(tp)
        schema: Schema = {"type": "object"}
        if doc:
            schema["description"] = doc
        schema["properties"] = properties
        schema["required"] = [n for n in properties if n not in optional]
        schema["additionalProperties"] = False
        return schema

    def pattern(self) -> Schema:
        """The card patterns the game's deck may be named in (rules/cards.md)."""
        return {"enum": list(patterns_for(self.game.deck.family))}


def _wire_fields(cls: type) -> dict[str, Any]:
    """The fields ``to_plain`` writes for a dataclass, with their resolved types."""
    hints = typing.get_type_hints(cls)
    return {
        f.name: hints[f.name]
        for f in dataclasses.fields(cls)
        if f.init and not f.name.startswith("_")
    }


def _doc(cls: type) -> str:
    """The first paragraph of a class's docstring, on one line."""
    text = (cls.__doc__ or "").strip().split("\n\n")[0]
    return " ".join(text.split()).replace("``", "`").replace("`None`", "`null`")


def game_schema(game_id: str, ref_prefix: str = "#/$defs/") -> Schema:
    """The schema document of one game (see the module docstring).

    ``ref_prefix`` is where the document's ``$defs`` will be when it is
    embedded in a bigger document (``#/games/scopa/$defs/`` in the protocol's).
    """
    game = GAMES[game_id]
    b = _Builder(game, ref_prefix)
    b.defs["card"] = {
        "description": f"A card of the {game.deck.name} deck: RANK then SUIT (rules/cards.md).",
        "enum": [c.rank + c.suit for c in game.deck.cards],
    }
    b.of(game.options_type)  # its def: the options echoed in each view
    view = b.of(game.view_type)
    actions = b.union(tuple(game.action_types))
    events = []
    for kind, spec in EVENTS[game_id].items():
        name = f"event_{kind}"
        audience = "To that seat only. " if spec.private else ""
        b.defs[name] = {
            "type": "object",
            "description": audience + spec.doc,
            "properties": {
                "kind": {"const": kind},
                "data": b.closed_object(spec.fields, optional=spec.optional),
            },
            "required": ["kind", "data"],
            "additionalProperties": False,
        }
        events.append(b.ref(name))
    b.defs["options"] = _input_options(b.defs[game.options_type.__name__], game)
    b.defs["view"] = view
    b.defs["spectator_view"] = {
        "description": "A spectator's view: no seat, no hand, no legal actions.",
        "allOf": [
            view,
            {
                "properties": {
                    "seat": {"type": "null"},
                    "hand": {"maxItems": 0},
                    "legal": {"maxItems": 0},
                }
            },
        ],
    }
    b.defs["action"] = actions
    b.defs["event"] = {"oneOf": events}
    return {
        "$schema": DIALECT,
        "title": f"Cardavia {game.title}",
        "description": (
            f"The game {game_id!r}: 'options' (create's options), 'view' (the view of a "
            "seat in 'update'/'snapshot'), 'spectator_view', 'action' (act's action: one "
            "of the view's 'legal' entries) and 'event' (each entry of an update's events)."
        ),
        "game": game_id,
        "options": b.ref("options"),
        "view": b.ref("view"),
        "spectator_view": b.ref("spectator_view"),
        "action": b.ref("action"),
        "event": b.ref("event"),
        "$defs": b.defs,
    }


def _input_options(value: Schema, game: Game[Any, Any, Any, Any]) -> Schema:
    """The options ``create`` accepts: the view's options with every field optional."""
    defaults = dataclasses.asdict(game.options(None))
    properties = {
        name: {**schema, "default": defaults[name]} for name, schema in value["properties"].items()
    }
    return {
        "type": "object",
        "description": "Table options (create); a missing field takes its default.",
        "properties": properties,
        "additionalProperties": False,
    }


def all_game_schemas(ref_root: str = "#") -> dict[str, Schema]:
    """Every registered game's document, keyed by game id, for embedding at ``ref_root``."""
    docs = {g: game_schema(g, f"{ref_root}/{g}/$defs/") for g in GAMES}
    for doc in docs.values():
        del doc["$schema"]  # only the embedding document's root names the dialect
    return docs
