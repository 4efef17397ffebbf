"""The fast capture enumeration and the validator agree with the rule text (A turn)."""

from __future__ import annotations

from itertools import combinations

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.cards import Card
from engine.cicera.rules import VALUE, capture_options, check_capture
from engine.game import IllegalAction
from tests.engine.cicera.helpers import DECK


def allowed_by_the_rules(card: Card, group: frozenset[Card]) -> bool:
    """The rule text, literally: a match of one card, or a sum of 2+ number cards."""
    if len(group) == 1:
        return next(iter(group)).rank == card.rank
    return (
        card.rank in VALUE
        and all(c.rank in VALUE for c in group)
        and sum(VALUE[c.rank] for c in group) == VALUE[card.rank]
    )


deals = st.lists(st.sampled_from(DECK.cards), min_size=2, max_size=11, unique=True).map(
    lambda cs: (cs[0], tuple(cs[1:]))
)


@settings(max_examples=150, deadline=None)
@given(deals)
def test_capture_options_are_exactly_the_groups_the_rules_allow(deal: tuple[Card, tuple]) -> None:
    card, table = deal
    groups = [frozenset(g) for n in range(1, len(table) + 1) for g in combinations(table, n)]
    expected = {g for g in groups if allowed_by_the_rules(card, g)}
    options = capture_options(card, table)
    assert len(options) == len(set(options))
    assert set(options) == expected
    for g in groups[:200]:
        try:
            check_capture(card, g, table)
            accepted = True
        except IllegalAction:
            accepted = False
        assert accepted == (g in expected), (card, sorted(g))
