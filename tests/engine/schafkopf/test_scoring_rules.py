"""rules/schafkopf.md — Scoring: thresholds, Schneider, Schwarz, Laufende, settlement.

These call the scoring function with explicit dealt hands (for the Laufende)
and explicit trick winners and points: the cards inside the tricks do not
matter to the score, only who took how many points.
"""

from __future__ import annotations

import pytest

from engine.cards import GERMAN_32
from engine.schafkopf import Contract, Trick
from engine.schafkopf.rules import score_deal
from engine.schafkopf.state import ContractKind, DealRecord, Hands
from tests.engine.schafkopf.helpers import card, cards

FILLER = cards("7E 8E 9E 7G")
OBERS = ["OE", "OG", "OH", "OS"]
UNTERS = ["UE", "UG", "UH", "US"]


def dealt(owners: dict[str, int]) -> Hands:
    """Hands in which the named cards lie with the given seats; the rest fill up."""
    hands: list[list[str]] = [[], [], [], []]
    for text, seat in owners.items():
        hands[seat].append(text)
    rest = [str(c) for c in GERMAN_32.cards if str(c) not in owners]
    for s in range(4):
        while len(hands[s]) < 8:
            hands[s].append(rest.pop())
    assert not rest
    return (
        cards(" ".join(hands[0])),
        cards(" ".join(hands[1])),
        cards(" ".join(hands[2])),
        cards(" ".join(hands[3])),
    )


def tricks(*won: tuple[int, int]) -> tuple[Trick, ...]:
    """Tricks given as (winner, points)."""
    return tuple(Trick(w, (FILLER[0], FILLER[1], FILLER[2], FILLER[3]), w, p) for w, p in won)


def split(decl: int, points: int, n_decl: int = 4) -> tuple[Trick, ...]:
    """Eight tricks: ``n_decl`` to seat ``decl`` worth ``points``, the rest to seat 1."""
    out = [(decl, points)] + [(decl, 0)] * (n_decl - 1)
    if n_decl < 8:
        out += [(1, 120 - points)] + [(1, 0)] * (8 - n_decl - 1)
    assert len(out) == 8 and sum(p for _, p in out) == 120
    return tricks(*out)


# seat 0 declares below: one top trump only, with Obers or with Unters on top
NO_LAUFENDE = dealt({"OE": 0, "OG": 1, "UE": 0, "UG": 1})


def score(
    kind: ContractKind,
    suit: str | None,
    tr: tuple[Trick, ...],
    hands: Hands = NO_LAUFENDE,
    partner: int | None = None,
) -> DealRecord:
    if kind == "rufer" and partner is None:
        partner = 2
    return score_deal(0, 3, Contract(kind, suit, 0), partner, hands, tr)


@pytest.mark.parametrize(("points", "won"), [(61, True), (60, False)])
def test_61_points_win_60_lose(points: int, won: bool) -> None:
    r = score("solo", "E", split(0, points))
    assert r.declarer_won is won
    assert r.value == 5
    assert r.settlement == ((15, -5, -5, -5) if won else (-15, 5, 5, 5))


def test_rufer_side_points_add_declarer_and_partner() -> None:
    tr = tricks((0, 30), (2, 31), (1, 59), (3, 0), (0, 0), (2, 0), (1, 0), (3, 0))
    r = score("rufer", "G", tr, partner=2)
    assert (r.declarer_points, r.defender_points, r.declarer_tricks) == (61, 59, 4)
    assert r.declarer_won and r.settlement == (1, -1, 1, -1)


@pytest.mark.parametrize(
    ("points", "won", "schneider"),
    [(91, True, True), (90, True, False), (31, False, False), (30, False, True)],
)
def test_schneider_91_for_the_declarer_90_for_the_defenders(
    points: int, won: bool, schneider: bool
) -> None:
    r = score("wenz", None, split(0, points))
    assert r.declarer_won is won
    assert r.schneider is schneider and not r.schwarz
    assert r.value == 5 + (1 if schneider else 0)


def test_schwarz_counts_tricks_not_points() -> None:
    all_tricks = tricks(*[(0, 15)] * 8)
    r = score("solo", "H", all_tricks)
    assert r.schwarz and not r.schneider and r.value == 7
    # the defenders took a trick worth nothing: Schneider, not Schwarz
    seven = tricks(*[(0, 20)] * 6, (0, 0), (1, 0))
    r = score("solo", "H", seven)
    assert r.declarer_points == 120 and r.schneider and not r.schwarz and r.value == 6
    # the declarer took one empty trick: the defenders' Schneider only
    r = score("solo", "H", tricks((0, 0), *[(1, 20)] * 6, (3, 0)))
    assert not r.declarer_won and r.schneider and not r.schwarz
    r = score("solo", "H", tricks(*[(1, 15)] * 8))
    assert not r.declarer_won and r.schwarz and r.value == 7


def test_laufende_from_three_in_rufer_and_solo() -> None:
    two = dealt({"OE": 0, "OG": 0, "OH": 1})
    three = dealt({"OE": 0, "OG": 0, "OH": 0, "OS": 3})
    assert score("solo", "E", split(0, 70), two).laufende == 0
    r = score("solo", "E", split(0, 70), three)
    assert (r.laufende, r.value) == (3, 8)


def test_laufende_run_on_through_the_unters_into_the_suit_trumps() -> None:
    seven = dict.fromkeys(OBERS + ["UE", "UG", "UH"], 0) | {"US": 1}
    assert score("solo", "E", split(0, 70), dealt(seven)).laufende == 7
    # a defender with all Obers and Unters, another with AH: nine in a Solo in hearts
    nine = dict.fromkeys(OBERS + UNTERS, 1) | {"AH": 2, "TH": 0}
    r = score("solo", "H", split(0, 70), dealt(nine))
    assert (r.laufende, r.laufende_side) == (9, "defenders")
    assert r.value == 5 + 9


def test_laufende_of_the_defenders_count_the_same() -> None:
    hands = dealt({"OE": 1, "OG": 2, "OH": 3, "OS": 1, "UE": 0})
    r = score("solo", "E", split(0, 40), hands)
    assert not r.declarer_won
    assert (r.laufende, r.laufende_side) == (4, "defenders")
    assert r.value == 5 + 4
    assert r.settlement == (-27, 9, 9, 9)


def test_in_rufer_the_partner_holds_laufende_with_the_declarer() -> None:
    hands = dealt({"OE": 0, "OG": 2, "OH": 2, "OS": 1})
    r = score("rufer", "G", split(0, 70), hands, partner=2)
    assert (r.laufende, r.laufende_side) == (3, "declarer")
    # with seat 3 as partner the declarer's side holds OE alone
    r = score("rufer", "G", split(0, 70), hands, partner=3)
    assert r.laufende == 0


def test_laufende_from_two_in_wenz_from_the_top_unter() -> None:
    one = dealt({"UE": 0, "UG": 1})
    two = dealt({"UE": 0, "UG": 0, "UH": 1})
    four = dealt({"UE": 3, "UG": 2, "UH": 1, "US": 2})
    assert score("wenz", None, split(0, 70), one).laufende == 0
    assert score("wenz", None, split(0, 70), two).laufende == 2
    assert score("wenz_tout", None, tricks(*[(0, 15)] * 8), two).laufende == 2
    r = score("wenz", None, split(0, 70), four)
    assert (r.laufende, r.laufende_side, r.value) == (4, "defenders", 9)
    # Obers are no Laufende in Wenz: OE OG with the declarer change nothing
    hands = dealt({"OE": 0, "OG": 0, "UE": 1, "UG": 0})
    assert score("wenz", None, split(0, 70), hands).laufende == 0


def test_tout_has_no_schneider_or_schwarz_and_doubles_laufende() -> None:
    three = dealt({"OE": 0, "OG": 0, "OH": 0, "OS": 3})
    r = score("solo_tout", "S", tricks(*[(0, 15)] * 8), three)
    assert r.declarer_won and not r.schwarz and not r.schneider
    assert r.value == 10 + 2 * 3 and r.settlement == (48, -16, -16, -16)
    lost = score("solo_tout", "S", tricks((0, 15), (2, 10)), three)
    assert not lost.declarer_won and not lost.schneider
    assert lost.tricks_played == 2 and lost.value == 16 and lost.settlement == (-48, 16, 16, 16)


def test_sie_is_twenty_plus_eight_laufende_at_four() -> None:
    hands = dealt(dict.fromkeys(OBERS + UNTERS, 0))
    r = score_deal(0, 3, Contract("sie", None, 0), None, hands, ())
    assert r.declarer_won and r.laufende == 8 and r.value == 52
    assert r.settlement == (156, -52, -52, -52)


@pytest.mark.parametrize(
    ("kind", "suit"),
    [("rufer", "E"), ("wenz", None), ("solo", "G"), ("wenz_tout", None), ("solo_tout", "H")],
)
@pytest.mark.parametrize("points", [0, 30, 60, 61, 90, 120])
def test_settlement_is_zero_sum(kind: ContractKind, suit: str | None, points: int) -> None:
    r = score(kind, suit, split(0, points, n_decl=8 if points == 120 else 4))
    assert sum(r.settlement) == 0
    if kind == "rufer":
        assert r.settlement[0] == r.settlement[2] == -r.settlement[1] == -r.settlement[3]
    else:
        assert r.settlement[0] == -3 * r.settlement[1]
        assert r.settlement[1] == r.settlement[2] == r.settlement[3]
    assert abs(r.settlement[1]) == r.value


def test_card_points_total_120() -> None:
    from engine.schafkopf.rules import CARD_POINTS

    assert sum(CARD_POINTS.values()) == 120
    assert [CARD_POINTS[card(r + "E")] for r in "ATKOU987"] == [11, 10, 4, 3, 2, 0, 0, 0]
