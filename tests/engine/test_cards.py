"""rules/cards.md — notation, families, decks and patterns."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.cards import (
    BRESCIANE,
    BRESCIANE_52,
    DOUDIZHU_54,
    FRENCH,
    GERMAN,
    GERMAN_32,
    PATTERNS,
    SCOPA_40,
    Card,
    CardError,
    format_cards,
    parse_card,
    parse_cards,
    patterns_for,
)


def test_deck_sizes():
    assert len(SCOPA_40) == 40
    assert len(DOUDIZHU_54) == 54
    assert len(BRESCIANE_52) == 52
    assert len(GERMAN_32) == 32


def test_scopa_deck_has_no_eights_nines_or_tens():
    assert {c.rank for c in SCOPA_40.cards} == set("A234567JQK")


def test_jokers_are_written_bj_and_rj():
    assert parse_card("BJ", FRENCH) == Card("B", "J")
    assert parse_card("RJ") == Card("R", "J")
    assert Card("B", "J") in DOUDIZHU_54 and Card("R", "J") in DOUDIZHU_54
    assert Card("B", "J") not in SCOPA_40


@pytest.mark.parametrize(
    ("text", "family", "fragment"),
    [
        ("7d", FRENCH, "upper case ('7D')"),
        ("7X", FRENCH, "suit 'X'"),
        ("1S", FRENCH, "rank '1'"),
        ("10S", FRENCH, "exactly 2 characters"),
        ("", FRENCH, "exactly 2 characters"),
        ("OE", FRENCH, "rank 'O'"),
        ("AX", GERMAN, "suit 'X'"),
        ("JC", BRESCIANE, "rank 'J'"),
        ("XJ", FRENCH, "rank 'X'"),
    ],
)
def test_bad_notation_gives_a_clear_error(text, family, fragment):
    with pytest.raises(CardError) as err:
        family.parse(text)
    assert fragment in str(err.value)
    assert repr(text) in str(err.value)


def test_any_family_parse_and_unknown_cards():
    assert parse_card("OE") == Card("O", "E")
    assert parse_card("FC") == Card("F", "C")
    with pytest.raises(CardError, match="not a card of any deck"):
        parse_card("ZZ")
    with pytest.raises(CardError):
        parse_card(7)  # type: ignore[arg-type]


def test_deck_parse_rejects_cards_outside_the_deck():
    with pytest.raises(CardError, match="not part of the scopa40 deck"):
        SCOPA_40.parse("8S")
    assert SCOPA_40.parse("7D") == Card("7", "D")


@given(st.lists(st.sampled_from(DOUDIZHU_54.cards), unique=True))
def test_format_and_parse_round_trip(cards):
    assert parse_cards(format_cards(cards), FRENCH) == tuple(cards)


def test_patterns_only_name_cards():
    assert set(patterns_for(GERMAN)) == {"bavarian", "double_german", "south_tyrolean", "salzburg"}
    assert PATTERNS["south_tyrolean"].name(Card("A", "E")) == "Daus of Eichel"
    assert PATTERNS["napoletane"].name(Card("7", "D")) == "Seven of Denari"
    # the Neapolitan deck has no queen: Q is its knight, the Cavallo
    assert PATTERNS["napoletane"].name(Card("Q", "S")) == "Cavallo of Spade"
    assert PATTERNS["napoletane"].name(Card("J", "C")) == "Fante of Bastoni"
    assert PATTERNS["french"].name(Card("R", "J")) == "Red Joker"
    for pattern in PATTERNS.values():
        for card in pattern.family.cards():
            assert pattern.name(card)
