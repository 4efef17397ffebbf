"""Deterministic randomness passed in from outside (ARCHITECTURE.md, engine/).

The engine never touches the global ``random`` module.  A table has one seed;
every shuffle it needs (the first deal, the next deal of a match, a redeal)
gets its own generator derived from the seed and a label, so the same seed
and action log always give the same cards, whatever else used ``random``.
"""

from __future__ import annotations

import random


def derive_rng(seed: int, *labels: object) -> random.Random:
    """A generator determined by ``seed`` and ``labels`` (stable across processes)."""
    key = "/".join([str(int(seed)), *(str(label) for label in labels)])
    return random.Random(key)


def new_seed(rng: random.Random) -> int:
    """A fresh 63-bit seed drawn from ``rng``."""
    return rng.getrandbits(63)
