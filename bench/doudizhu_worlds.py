"""How well Dou Dizhu ``hard`` guesses the hidden hands (issue 15: better worlds).

    python -m bench.doudizhu_worlds [--deals 20] [--worlds 40] [--players normal]

Win rates move too little to tell one world sampler from another in less
than half an hour of arena games (a paired ±0.05 on 90 deals), yet an
oracle that shows ``hard`` where the aces, twos and jokers lie gains about
+0.09 against ``normal``.  This measures the guess itself, in seconds: over
``--deals`` seeded deals played by ``--players`` at every seat, at every
card-play decision with a choice, each sampler draws ``--worlds`` worlds
from the deciding seat's view and each world is scored against the true
hands:

- ``high``: the share of (other seat, rank of ace, two, black or red joker)
  whose count in the world is the true count;
- ``cards``: the share of the other seats' cards the world puts in the
  right hand.

Samplers: ``uniform`` deals the unseen cards at random by the hand counts
(:meth:`~engine.doudizhu.ai.worlds.WorldSampler.deal`), the yardstick of
the same run; ``hard`` is what the search uses
(:meth:`~engine.doudizhu.ai.worlds.WorldSampler.sample`, passes and
auction read, and a farmer read as a simple player dealt only what its turns
allow); ``truth`` returns the true hands and must score 1 (a check of the
scoring).
Figures are given for the whole card play and for its later part
(``_late``: 15 turns or more played), where there is more to read.
``gain_high`` and ``gain_cards`` are ``hard`` less ``uniform``.  ``--players`` may
also be ``rlcard-rule`` (RLCard's rule agent, the ``peers`` extra): a simple player.

Progress goes to stderr; the last line of stdout is one JSON object.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

from bench.report import log
from client_cli.arena import make_policy
from engine.doudizhu.ai.worlds import WorldSampler
from engine.doudizhu.combos import ACE, NUM_RANKS, unpack
from engine.doudizhu.game import DoudizhuGame
from engine.doudizhu.state import DoudizhuState, DoudizhuView
from engine.registry import policy_names

LATE = 15
"""Turns of the card play after which a decision counts as late."""
HIGH = tuple(range(ACE, NUM_RANKS))
"""Ace, two, black joker, red joker."""
SAMPLERS = ("uniform", "hard", "truth")


def score(world: Sequence[int], truth: Sequence[int], seat: int) -> tuple[float, float]:
    """``(high, cards)`` of one world against the true hands, from ``seat``'s side."""
    pairs = [(unpack(world[s]), unpack(truth[s])) for s in range(3) if s != seat]
    high = sum(guess[r] == true[r] for guess, true in pairs for r in HIGH)
    right = sum(min(g, t) for guess, true in pairs for g, t in zip(guess, true, strict=True))
    held = sum(sum(true) for _, true in pairs)
    return high / (len(pairs) * len(HIGH)), right / held if held else 1.0


def samplers(view: DoudizhuView, state: DoudizhuState) -> dict[str, Callable[..., list[int]]]:
    """Each sampler's draw for ``view`` (``truth`` reads the secret ``state``)."""
    sampler = WorldSampler(view)
    return {
        "uniform": sampler.deal,
        "hard": sampler.sample,
        "truth": lambda rng: list(state.counts),
    }


def run(deals: int, worlds: int, players: str, seed: int) -> dict[str, Any]:
    """Play the deals and score every sampler (see the module docstring)."""
    game = DoudizhuGame()
    options = game.options()
    policy = make_policy("doudizhu", players)
    sums: dict[str, float] = {}
    counts = {"all": 0, "late": 0}
    spent = dict.fromkeys(SAMPLERS, 0.0)
    started = time.perf_counter()
    for k in range(deals):
        rng = random.Random(seed * 1_000 + k)
        state = game.new_state(options, seed * 1_000 + k)
        while not game.is_over(state):
            (seat,) = game.to_act(state)
            view = game.view(state, seat)
            if state.landlord is not None and len(view.legal) > 1:
                late = len(view.history) >= LATE
                counts["all"] += 1
                counts["late"] += late
                for name, draw in samplers(view, state).items():
                    world_rng = random.Random(len(view.history))
                    t = time.perf_counter()
                    drawn = [draw(world_rng) for _ in range(worlds)]
                    spent[name] += time.perf_counter() - t
                    high = cards = 0.0
                    for world in drawn:
                        h, c = score(world, state.counts, seat)
                        high += h / worlds
                        cards += c / worlds
                    for key, value in (("high", high), ("cards", cards)):
                        for tag in (key, f"{key}_late") if late else (key,):
                            sums[f"{name}.{tag}"] = sums.get(f"{name}.{tag}", 0.0) + value
            state = game.apply(state, seat, policy.choose(view, view.legal, rng)).state
        elapsed = time.perf_counter() - started
        log(f"deal {k + 1}/{deals}: {counts['all']} decisions, {elapsed:.1f} s")
    out: dict[str, Any] = {"deals": deals, "worlds": worlds, "players": players, "seed": seed}
    out["decisions"] = counts["all"]
    out["decisions_late"] = counts["late"]
    for name in SAMPLERS:
        row: dict[str, float] = {}
        for key in ("high", "cards"):
            row[key] = round(sums.get(f"{name}.{key}", 0.0) / max(counts["all"], 1), 4)
            row[f"{key}_late"] = round(
                sums.get(f"{name}.{key}_late", 0.0) / max(counts["late"], 1), 4
            )
        draws = max(counts["all"] * worlds, 1)
        row["us_per_world"] = round(spent[name] / draws * 1e6, 1)
        out[name] = row
    for key in ("high", "cards", "high_late", "cards_late"):
        out[f"gain_{key}"] = round(out["hard"][key] - out["uniform"][key], 4)
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.doudizhu_worlds",
        description=(__doc__ or "").split("\n\n")[0],
    )
    parser.add_argument("--deals", type=int, default=20, help="seeded deals (default 20)")
    parser.add_argument("--worlds", type=int, default=40, help="worlds per decision and sampler")
    parser.add_argument(
        "--players",
        default="normal",
        choices=[*sorted(policy_names("doudizhu")), "rlcard-rule"],
        help="the policy at every seat (default normal)",
    )
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    if args.deals < 1 or args.worlds < 1:
        parser.error("--deals and --worlds must be at least 1")
    print(json.dumps(run(args.deals, args.worlds, args.players, args.seed), sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
