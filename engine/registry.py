"""The registry from game id to game and to that game's policies (docs/architecture.md)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from engine.cicera.game import CiceraGame
from engine.cicera.policies import POLICIES as CICERA_POLICIES
from engine.doudizhu.game import DoudizhuGame
from engine.doudizhu.policies import POLICIES as DOUDIZHU_POLICIES
from engine.game import Game
from engine.policy import Peers, Policy, seated
from engine.schafkopf.game import SchafkopfGame
from engine.schafkopf.policies import POLICIES as SCHAFKOPF_POLICIES
from engine.scopa.game import ScopaGame
from engine.scopa.policies import POLICIES as SCOPA_POLICIES


class UnknownGame(KeyError):
    """A game id that is not registered."""

    def __str__(self) -> str:
        return f"unknown game {self.args[0]!r}; known: {', '.join(GAMES)}"


class UnknownPolicy(KeyError):
    """A policy name that the game does not have."""

    def __str__(self) -> str:
        game_id, name = self.args
        return f"unknown policy {name!r} for {game_id}; known: {', '.join(POLICIES[game_id])}"


GAMES: Mapping[str, Game[Any, Any, Any, Any]] = {
    "scopa": ScopaGame(),
    "cicera": CiceraGame(),
    "doudizhu": DoudizhuGame(),
    "schafkopf": SchafkopfGame(),
}

POLICIES: Mapping[str, Mapping[str, Callable[[], Policy]]] = {
    "scopa": SCOPA_POLICIES,
    "cicera": CICERA_POLICIES,
    "doudizhu": DOUDIZHU_POLICIES,
    "schafkopf": SCHAFKOPF_POLICIES,
}


def get_game(game_id: str) -> Game[Any, Any, Any, Any]:
    """The registered game ``game_id``; raise :class:`UnknownGame`."""
    try:
        return GAMES[game_id]
    except KeyError:
        raise UnknownGame(game_id) from None


def policy_names(game_id: str) -> tuple[str, ...]:
    """The policy names of ``game_id``, weakest first (the last is the strongest)."""
    get_game(game_id)
    return tuple(POLICIES[game_id])


def get_policy(game_id: str, name: str, peers: Peers = ()) -> Policy:
    """A fresh policy ``name`` of game ``game_id``, told the table's ``peers``
    (engine.policy.seated); raise UnknownGame/UnknownPolicy."""
    get_game(game_id)
    try:
        factory = POLICIES[game_id][name]
    except KeyError:
        raise UnknownPolicy(game_id, name) from None
    return seated(factory(), peers)
