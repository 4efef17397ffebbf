"""The engine's randomness: derived generators and the deals' shuffle."""

from __future__ import annotations

import random

from hypothesis import given
from hypothesis import strategies as st

from engine.rng import derive_rng, shuffle


@given(st.integers(min_value=0, max_value=2**63 - 1), st.integers(min_value=0, max_value=120))
def test_shuffle_is_randoms_own_permutation_from_the_same_draws(seed: int, size: int) -> None:
    """Every recorded deal stays as dealt: the same permutation as random.shuffle, and
    the generator left in the same state (the draws after it agree too)."""
    ours, theirs = derive_rng(seed, "deal"), derive_rng(seed, "deal")
    mine, reference = list(range(size)), list(range(size))
    shuffle(ours, mine)
    theirs.shuffle(reference)
    assert mine == reference
    assert ours.getrandbits(64) == theirs.getrandbits(64)


def test_a_deck_of_any_values_is_shuffled_in_place() -> None:
    deck = [f"c{i}" for i in range(32)]
    rng = random.Random(7)
    shuffle(rng, deck)
    assert sorted(deck) == sorted(f"c{i}" for i in range(32)) and deck != sorted(deck)
    empty: list[str] = []
    shuffle(rng, empty)
    assert empty == []
