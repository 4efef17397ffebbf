"""Properties of the legal plays (A trick; The called ace), over random positions."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.cards import GERMAN_32, Card
from engine.schafkopf.rules import MODES, legal_plays, play_error

positions = st.tuples(
    st.permutations(GERMAN_32.cards),
    st.integers(min_value=1, max_value=8),
    st.integers(min_value=0, max_value=3),
    st.sampled_from(sorted(MODES, key=str)),
    st.sampled_from("EGS"),
    st.booleans(),
)


@settings(max_examples=300, deadline=None)
@given(positions)
def test_legal_plays_follow_the_rules(position: tuple) -> None:  # type: ignore[type-arg]
    order, n_hand, n_trick, mode_key, called, with_ace = position
    mode = MODES[mode_key]
    ace = Card("A", called)
    cards = [c for c in order if c != ace]
    hand = tuple(cards[:n_hand])
    if with_ace:
        hand = (*hand[:-1], ace)
    trick = tuple(cards[n_hand : n_hand + n_trick])
    active = ace if with_ace and mode_key == "H" else None  # the called ace rules: Rufer
    legal = legal_plays(hand, trick, mode, active)
    assert legal and set(legal) <= set(hand)
    eff = mode.eff
    if active is None:
        if trick:
            led = eff[trick[0]]
            follow = {c for c in hand if eff[c] == led}
            assert set(legal) == (follow or set(hand))  # follow if you can, else anything
        else:
            assert set(legal) == set(hand)
    else:
        called_cards = [c for c in hand if eff[c] == called]
        if not trick:  # rule 3
            runaway = len(called_cards) >= 4
            assert ace in legal
            assert all((c in legal) == (runaway or c == ace) for c in called_cards)
        elif eff[trick[0]] == called:  # rule 1
            assert legal == (ace,)
        else:  # rule 2
            follow = [c for c in hand if eff[c] == eff[trick[0]]]
            assert (ace in legal) == (not follow and len(hand) == 1)
    for c in hand:
        if c not in legal:
            code, _, _ = play_error(hand, trick, mode, active, c)
            assert code in {
                "must_follow_suit",
                "must_play_called_ace",
                "may_not_discard_called_ace",
                "must_lead_called_ace",
            }
