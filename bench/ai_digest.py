"""A fingerprint of every AI level's decisions at fixed seeds (issue 52: AI beside the rules).

    python -m bench.ai_digest [--deals 6] [--iterations 100] [--decisions 200]
                              [--games scopa,cicera,doudizhu,schafkopf]

A refactoring of the AI must not change a single decision.  For every game
and every level its registry lists (:data:`engine.registry.POLICIES`), this
plays ``--deals`` seeded matches with that level at every seat, each stopped
after ``--decisions`` decisions, and hashes every decision into one sha256
per game and level: the seat, the legal actions the policy was offered and
the action it chose, all in their plain form (:func:`engine.codec.to_plain`).
Equal digests before and after a change mean equal decisions.

Everything is fixed so that a run repeats exactly: the deal seeds, the
policies' random generator (one per match, seeded from the match's seed, and
shared by its decisions as ``cardavia arena`` shares one: a change in how many
numbers a decision draws, even where it does not change that decision, shows
in every later one), and the budget, ``--iterations`` with no time cap
(:class:`engine.game.Budget`: an iteration-only budget makes a seeded search
deterministic).  Even-numbered matches seat players the table shows as
unknown (``peers`` empty), odd ones seats showing the level's name at every
seat (:data:`engine.policy.Peers`), so a policy that plays differently once
told who sits where (Dou Dizhu's ``hard``) is fingerprinted both ways.
The outside opponents of ``cardavia arena``
(:data:`client_cli.arena.EXTERNAL_POLICIES`: Dou Dizhu's ``rlcard-rule``) are
fingerprinted too where their optional library is installed.

Progress goes to stderr; the last line of stdout is one JSON object,
``{"games": {game: {level: digest}}}``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

from bench.report import log
from client_cli.arena import EXTERNAL_POLICIES, make_policy
from engine.codec import to_plain
from engine.game import Budget, Game
from engine.policy import Peers, Policy, seated
from engine.registry import GAMES, POLICIES, get_game, get_policy

DEALS = 6
ITERATIONS = 100
DECISIONS = 200
SEED = 52


def _external(game_id: str, name: str) -> Policy | None:
    """``cardavia arena``'s outside opponent ``name``, if its optional library is installed."""
    try:
        return make_policy(game_id, name)
    except ImportError:
        return None


def levels(game_id: str) -> dict[str, Callable[[Peers], Policy]]:
    """Each level to fingerprint in ``game_id``, as a maker of a policy told the table's
    peers: the registry's, then the outside opponents whose libraries are installed."""
    out: dict[str, Callable[[Peers], Policy]] = {
        name: partial(get_policy, game_id, name) for name in POLICIES[game_id]
    }
    for game, name in EXTERNAL_POLICIES:
        if game == game_id and _external(game, name) is not None:
            out[name] = partial(_seated_external, game, name)
    return out


def _seated_external(game_id: str, name: str, peers: Peers) -> Policy:
    return seated(make_policy(game_id, name), peers)


def play_match(
    game: Game[Any, Any, Any, Any],
    make: Callable[[Peers], Policy],
    level: str,
    seed: int,
    match: int,
    budget: Budget,
    decisions: int,
    digest: Any,
) -> int:
    """Play one match (at most ``decisions`` decisions) into ``digest``; the decisions made."""
    options = game.options()
    seats = game.num_seats(options)
    peers: Peers = (level,) * seats if match % 2 else ()
    policies = [make(peers) for _ in range(seats)]
    state = game.new_state(options, seed * 1_000 + match)
    rng = random.Random(f"{seed}:{match}:{level}")
    made = 0
    while not game.is_over(state) and made < decisions:
        seat = game.to_act(state)[0]
        legal = game.legal_actions(state, seat)
        view = game.view(state, seat)
        action = policies[seat].choose(view, legal, rng, budget)
        record = [seat, [to_plain(a) for a in legal], to_plain(action)]
        digest.update(json.dumps(record, sort_keys=True, separators=(",", ":")).encode())
        digest.update(b"\n")
        state = game.apply(state, seat, action).state
        made += 1
    return made


def run(
    games: Sequence[str], deals: int, iterations: int, decisions: int, seed: int = SEED
) -> dict[str, dict[str, str]]:
    """The digest of every level of every game in ``games`` (see the module docstring)."""
    budget = Budget(iterations=iterations, seconds=None)
    out: dict[str, dict[str, str]] = {}
    for game_id in games:
        game = get_game(game_id)
        out[game_id] = {}
        for level, make in levels(game_id).items():
            digest = hashlib.sha256()
            made = sum(
                play_match(game, make, level, seed, match, budget, decisions, digest)
                for match in range(deals)
            )
            out[game_id][level] = digest.hexdigest()
            log(f"{game_id} {level}: {made} decisions {out[game_id][level][:16]}")
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.ai_digest", description=(__doc__ or "").split("\n\n")[0]
    )
    parser.add_argument("--games", default=",".join(GAMES), help="comma-separated game ids")
    parser.add_argument("--deals", type=int, default=DEALS, help=f"matches per level ({DEALS})")
    parser.add_argument(
        "--iterations", type=int, default=ITERATIONS, help=f"search budget ({ITERATIONS})"
    )
    parser.add_argument(
        "--decisions", type=int, default=DECISIONS, help=f"decisions per match ({DECISIONS})"
    )
    parser.add_argument("--seed", type=int, default=SEED)
    args = parser.parse_args(argv)
    games = [g for g in args.games.split(",") if g]
    unknown = [g for g in games if g not in GAMES]
    if unknown:
        parser.error(f"unknown games: {', '.join(unknown)}; known: {', '.join(GAMES)}")
    if args.deals < 1 or args.iterations < 1 or args.decisions < 1:
        parser.error("--deals, --iterations and --decisions must be at least 1")
    result = run(games, args.deals, args.iterations, args.decisions, args.seed)
    print(json.dumps({"games": result}, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
