"""Cicera's capture rule, capture bonuses and deal scoring (rules/cicera.md)."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence

from engine.capture import groups_summing_to, majority
from engine.cards import BRESCIANE_52, Card
from engine.cicera.state import CiceraScore, LastPlay, Piles, TeamBonuses
from engine.game import IllegalAction
from engine.reasons import Reason, Why, codes

VALUE: dict[str, int] = {
    "A": 1,
    "2": 2,
    "3": 3,
    "4": 4,
    "5": 5,
    "6": 6,
    "7": 7,
    "8": 8,
    "9": 9,
    "T": 10,
}
"""Values of the number cards (Cards); Fante, Cavallo and Re have none."""

COURTS = frozenset("FCR")
SWORDS = "S"
MATA = Card("2", "S")
TEN_OF_COINS = Card("T", "D")
FANTE_OF_CUPS = Card("F", "C")
_SUM_MASK = (1 << (max(VALUE.values()) + 1)) - 1
SINGLES: dict[Card, frozenset[Card]] = {c: frozenset((c,)) for c in BRESCIANE_52.cards}
"""The one-card capture of each card (a match), built once."""
NAPULA_RUN: tuple[Card, ...] = tuple(Card(r, SWORDS) for r in "A23456789T")
"""The sword number cards from the ace upward (Napula)."""


def team_of(seat: int) -> int:
    """The partnership of ``seat``: seats 0 and 2 are team 0, seats 1 and 3 team 1."""
    return seat % 2


def capture_options(card: Card, table: Sequence[Card]) -> tuple[frozenset[Card], ...]:
    """Every capture ``card`` may make on ``table`` (A turn); Place is always allowed too.

    Matches (one table card of the same rank) come first, then sums: sets of
    two or more table number cards adding up to a number card's value.  A
    court has no value, so it only ever matches a court of its rank.
    """
    return capture_options_by_rank((card.rank,), table)[card.rank]


def capture_options_by_rank(
    ranks: Iterable[str], table: Sequence[Card]
) -> dict[str, tuple[frozenset[Card], ...]]:
    """:func:`capture_options` for a card of each of ``ranks``, sharing one pass over the table."""
    by_rank: dict[str, list[Card]] = {}
    numbers: list[tuple[Card, int]] = []
    # bit v of ``one`` / ``many``: some single card / group of 2+ number cards sums to v
    one = many = 0
    for t in table:
        by_rank.setdefault(t.rank, []).append(t)
        v = VALUE.get(t.rank)
        if v is not None:
            numbers.append((t, v))
            many = (many | ((one | many) << v)) & _SUM_MASK
            one |= 1 << v
    out: dict[str, tuple[frozenset[Card], ...]] = {}
    for rank in ranks:
        if rank in out:
            continue
        options = [SINGLES[t] for t in by_rank.get(rank, ())]
        value = VALUE.get(rank)
        if value is not None and many >> value & 1:
            options.extend(groups_summing_to(numbers, value, min_size=2))
        out[rank] = tuple(options)
    return out


def check_capture(card: Card, capture: Collection[Card], table: Collection[Card]) -> None:
    """Raise :class:`IllegalAction` unless ``card`` may take exactly ``capture`` (A turn).

    An empty capture (Place) is always allowed.  The checks mirror
    :func:`capture_options` without enumerating every alternative.
    """
    if not capture:
        return
    missing = [c for c in capture if c not in table]
    if missing:
        names = " ".join(sorted(map(str, missing)))
        raise IllegalAction(
            "not_on_table",
            f"{names} is not on the table",
            Reason(Why.NOT_ON_TABLE, {"cards": codes(missing)}),
        )
    if card.rank in COURTS:
        only = next(iter(capture))
        if len(capture) != 1 or only.rank != card.rank:
            raise IllegalAction(
                "court_capture",
                f"{card} is a court: it captures only a single court of its rank",
                Reason(Why.COURT_CAPTURE, {"card": str(card)}),
            )
        return
    if len(capture) == 1:
        only = next(iter(capture))
        if only.rank != card.rank:
            raise IllegalAction(
                "rank_mismatch",
                f"{card} takes a single card only of its own rank, not {only};"
                " a sum needs two or more cards",
                Reason(Why.RANK_MISMATCH, {"card": str(card), "cards": (str(only),)}),
            )
        return
    courts = [c for c in capture if c.rank in COURTS]
    if courts:
        names = " ".join(sorted(map(str, courts)))
        raise IllegalAction(
            "court_in_sum",
            f"courts have no value and never join a sum ({names})",
            Reason(Why.COURT_IN_SUM, {"cards": codes(courts)}),
        )
    total = sum(VALUE[c.rank] for c in capture)
    if total != VALUE[card.rank]:
        raise IllegalAction(
            "sum_mismatch",
            f"the captured cards add up to {total}, not to {VALUE[card.rank]}",
            Reason(
                Why.SUM_MISMATCH, {"card": str(card), "total": total, "value": VALUE[card.rank]}
            ),
        )


def capture_bonuses(
    seat: int,
    card: Card,
    capture: Collection[Card],
    table_left: Collection[Card],
    last_play: LastPlay | None,
) -> tuple[str, ...]:
    """The bonuses a capture earns (Capture bonuses), in :data:`BONUS_NAMES` order.

    ``table_left`` is the table after the capture.  Scùa: the table is left
    empty.  Picada: the previous player placed a card without capturing and
    this capture takes exactly that card, by its rank.  Simili: the played
    card and every captured card share one suit.  Quadriglia: three or more
    table cards at once.  They stack, and count on the last play too.
    """
    if not capture:
        return ()
    out: list[str] = []
    if not table_left:
        out.append("scua")
    # ``last_play`` is always the previous player's play.  Taking the card it
    # placed alone is a match, so by rank; the conditions restate the rule.
    if (
        last_play is not None
        and not last_play.captured
        and len(capture) == 1
        and last_play.card in capture
        and last_play.card.rank == card.rank
    ):
        out.append("picada")
    suit = card.suit
    if all(c.suit == suit for c in capture):
        out.append("simili")
    if len(capture) >= 3:
        out.append("quadriglia")
    return tuple(out)


def napula_length(pile: Collection[Card]) -> int:
    """Napula: with A-2-3 of swords, the length of the unbroken sword run from the ace.

    Only number cards count, so the longest run is A…10 (10 points); a pile
    lacking any of A, 2 or 3 of swords scores 0.
    """
    run = 0
    for c in NAPULA_RUN:
        if c not in pile:
            break
        run += 1
    return run if run >= 3 else 0


def _holder(card: Card, piles: Piles) -> int | None:
    if card in piles[0]:
        return 0
    if card in piles[1]:
        return 1
    return None


def score_deal(
    piles: Piles, bonuses: tuple[TeamBonuses, TeamBonuses], unclaimed: tuple[Card, ...] = ()
) -> CiceraScore:
    """Score the finished deal (End of the deal): bonuses + awards + Napula per team.

    Most cards 2 points, most swords 1, ``2S``, ``TD`` and ``FC`` 1 each to
    their holder; a tied majority (or an unheld card) gives nobody the points.
    The higher total wins; equal totals are a draw (``winner`` is ``None``).
    """
    sets = (frozenset(piles[0]), frozenset(piles[1]))
    cards = (len(piles[0]), len(piles[1]))
    swords = (
        sum(1 for c in piles[0] if c.suit == SWORDS),
        sum(1 for c in piles[1] if c.suit == SWORDS),
    )
    cards_award = majority(*cards)
    swords_award = majority(*swords)
    mata = _holder(MATA, piles)
    ten = _holder(TEN_OF_COINS, piles)
    fante = _holder(FANTE_OF_CUPS, piles)
    award_points = [0, 0]
    if cards_award is not None:
        award_points[cards_award] += 2
    for team in (swords_award, mata, ten, fante):
        if team is not None:
            award_points[team] += 1
    napula = (napula_length(sets[0]), napula_length(sets[1]))
    bonus_points = (bonuses[0].total, bonuses[1].total)
    points = (
        bonus_points[0] + award_points[0] + napula[0],
        bonus_points[1] + award_points[1] + napula[1],
    )
    return CiceraScore(
        cards=cards,
        swords=swords,
        cards_award=cards_award,
        swords_award=swords_award,
        mata_award=mata,
        ten_of_coins_award=ten,
        fante_of_cups_award=fante,
        napula=napula,
        bonuses=bonus_points,
        awards=(award_points[0], award_points[1]),
        points=points,
        winner=majority(*points),
        unclaimed=unclaimed,
    )
