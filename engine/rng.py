"""Deterministic randomness passed in from outside (docs/architecture.md, engine/).

The engine never touches the global ``random`` module.  A table has one seed;
every shuffle it needs (the first deal, the next deal of a match, a redeal)
gets its own generator derived from the seed and a label, so the same seed
and action log always give the same cards, whatever else used ``random``.
"""

from __future__ import annotations

import random
from typing import Any


def derive_rng(seed: int, *labels: object) -> random.Random:
    """A generator determined by ``seed`` and ``labels`` (stable across processes)."""
    key = "/".join([str(int(seed)), *(str(label) for label in labels)])
    return random.Random(key)


def new_seed(rng: random.Random) -> int:
    """A fresh 63-bit seed drawn from ``rng``."""
    return rng.getrandbits(63)


def shuffle(rng: random.Random, items: list[Any]) -> None:
    """``rng.shuffle(items)``: the very same permutation, from the same draws.

    This is :meth:`random.Random.shuffle`'s algorithm (Python 3.11): for each
    position from the last down to the second, a draw below its count by
    ``getrandbits`` with rejection, then a swap.  Compiled with the hot path
    (:data:`compiled.modules.HOT_PATH`), a deal shuffles without
    going through ``random``'s Python code, and the deals a seed gives
    stay those of every recorded game (a test compares both on many seeds).
    """
    getrandbits = rng.getrandbits
    for i in range(len(items) - 1, 0, -1):
        n = i + 1
        k = n.bit_length()
        j = getrandbits(k)
        while j >= n:
            j = getrandbits(k)
        items[i], items[j] = items[j], items[i]
