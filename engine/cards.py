"""Cards, card families, decks and deck patterns (rules/cards.md).

A card is an immutable ``Card(rank, suit)`` value written as two upper-case
characters, RANK then SUIT (``7D``, ``OE``, ``BJ``).  Parsing rejects anything
else with a :class:`CardError` that says what is wrong.

A *pattern* (Bavarian, South Tyrolean, Napoletane …) only names cards: it never
changes a rule.  Games carry the pattern as a table option and views echo it,
so clients can print cards the way players of that region do.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import NamedTuple


class CardError(ValueError):
    """Bad card notation, or a card that does not belong to a deck."""


class Card(NamedTuple):
    """One card: ``rank`` and ``suit`` are single upper-case characters."""

    rank: str
    suit: str

    def __str__(self) -> str:
        return self.rank + self.suit

    def __repr__(self) -> str:
        return f"Card({self.rank + self.suit!r})"

    @property
    def text(self) -> str:
        """The card in the notation of rules/cards.md."""
        return self.rank + self.suit


@dataclass(frozen=True)
class Family:
    """A family of cards sharing one notation (rules/cards.md)."""

    name: str
    ranks: str
    suits: str
    extras: tuple[Card, ...] = ()

    def cards(self) -> tuple[Card, ...]:
        """Every card of the family, suit by suit, in rank order, then the extras."""
        return tuple(Card(r, s) for s in self.suits for r in self.ranks) + self.extras

    def parse(self, text: str) -> Card:
        """Parse one card of this family; raise :class:`CardError` on bad notation."""
        if not isinstance(text, str):
            raise CardError(f"a card is a 2-character string, not {type(text).__name__}")
        if len(text) != 2:
            raise CardError(f"bad card {text!r}: a card is exactly 2 characters, RANK then SUIT")
        if text != text.upper():
            raise CardError(
                f"bad card {text!r}: cards are written in upper case ({text.upper()!r})"
            )
        card = Card(text[0], text[1])
        if card in self.extras:
            return card
        if card.rank not in self.ranks:
            raise CardError(
                f"bad card {text!r}: rank {card.rank!r} is not one of "
                f"{' '.join(self.ranks)} ({self.name} cards)"
            )
        if card.suit not in self.suits:
            raise CardError(
                f"bad card {text!r}: suit {card.suit!r} is not one of "
                f"{' '.join(self.suits)} ({self.name} cards)"
            )
        return card


FRENCH = Family(
    "french", ranks="A23456789TJQK", suits="SHDC", extras=(Card("B", "J"), Card("R", "J"))
)
BRESCIANE = Family("bresciane", ranks="A23456789TFCR", suits="CDSB")
GERMAN = Family("german", ranks="ATKOU987", suits="EGHS")

FAMILIES: Mapping[str, Family] = {f.name: f for f in (FRENCH, BRESCIANE, GERMAN)}


def parse_card(text: str, family: Family | None = None) -> Card:
    """Parse a card; with no family, any family's notation is accepted."""
    if family is not None:
        return family.parse(text)
    errors = []
    for fam in FAMILIES.values():
        try:
            return fam.parse(text)
        except CardError as exc:
            errors.append(str(exc))
    if not isinstance(text, str) or len(text) != 2:
        raise CardError(errors[0])
    raise CardError(f"bad card {text!r}: not a card of any deck (see rules/cards.md)")


def parse_cards(text: str | Iterable[str], family: Family | None = None) -> tuple[Card, ...]:
    """Parse cards separated by spaces (``"7D 3S AH"``) or an iterable of card texts."""
    items = text.split() if isinstance(text, str) else list(text)
    return tuple(parse_card(t, family) for t in items)


def format_cards(cards: Iterable[Card]) -> str:
    """Cards in notation, separated by single spaces."""
    return " ".join(c.rank + c.suit for c in cards)


@dataclass(frozen=True)
class Deck:
    """The cards one game is dealt from."""

    name: str
    family: Family
    cards: tuple[Card, ...]
    _index: Mapping[Card, int] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if len(set(self.cards)) != len(self.cards):
            raise ValueError(f"deck {self.name} holds a card twice")
        object.__setattr__(self, "_index", {c: i for i, c in enumerate(self.cards)})

    def __len__(self) -> int:
        return len(self.cards)

    def __contains__(self, card: object) -> bool:
        return card in self._index

    def index(self, card: Card) -> int:
        """The position of ``card`` in the deck's canonical order."""
        return self._index[card]

    def parse(self, text: str) -> Card:
        """Parse a card and check that it belongs to this deck."""
        card = self.family.parse(text)
        if card not in self._index:
            raise CardError(f"card {text!r} is not part of the {self.name} deck")
        return card

    def parse_many(self, text: str | Iterable[str]) -> tuple[Card, ...]:
        """Parse several cards of this deck (see :func:`parse_cards`)."""
        items = text.split() if isinstance(text, str) else list(text)
        return tuple(self.parse(t) for t in items)

    def sort(self, cards: Iterable[Card]) -> tuple[Card, ...]:
        """Cards in the deck's canonical order."""
        return tuple(sorted(cards, key=self._index.__getitem__))


def _deck(name: str, family: Family, ranks: str, with_extras: bool = False) -> Deck:
    cards = tuple(Card(r, s) for s in family.suits for r in ranks)
    return Deck(name, family, cards + (family.extras if with_extras else ()))


SCOPA_40 = _deck("scopa40", FRENCH, "A234567JQK")
DOUDIZHU_54 = _deck("doudizhu54", FRENCH, FRENCH.ranks, with_extras=True)
BRESCIANE_52 = _deck("bresciane52", BRESCIANE, BRESCIANE.ranks)
GERMAN_32 = _deck("german32", GERMAN, GERMAN.ranks)


@dataclass(frozen=True)
class Pattern:
    """A regional card pattern: names and pictures only, never rules (cards.md)."""

    id: str
    family: Family
    rank_names: Mapping[str, str]
    suit_names: Mapping[str, str]

    def name(self, card: Card) -> str:
        """A card's name in this pattern, e.g. ``Daus of Eichel``."""
        if card in self.family.extras:
            return self.rank_names.get(card.text, card.text)
        return f"{self.rank_names[card.rank]} of {self.suit_names[card.suit]}"


_FRENCH_RANKS = {
    "A": "Ace",
    "2": "Two",
    "3": "Three",
    "4": "Four",
    "5": "Five",
    "6": "Six",
    "7": "Seven",
    "8": "Eight",
    "9": "Nine",
    "T": "Ten",
    "J": "Jack",
    "Q": "Queen",
    "K": "King",
    "BJ": "Black Joker",
    "RJ": "Red Joker",
}
_ITALIAN_RANKS_ON_FRENCH = {
    **_FRENCH_RANKS,
    "A": "Asso",
    "J": "Fante",
    "Q": "Cavallo",  # the Neapolitan deck has no queen: its third court is the knight
    "K": "Re",
}
_BRESCIANE_RANKS = {
    "A": "Asso",
    "2": "Due",
    "3": "Tre",
    "4": "Quattro",
    "5": "Cinque",
    "6": "Sei",
    "7": "Sette",
    "8": "Otto",
    "9": "Nove",
    "T": "Dieci",
    "F": "Fante",
    "C": "Cavallo",
    "R": "Re",
}
_GERMAN_RANKS = {
    "A": "Ass",
    "T": "Zehn",
    "K": "König",
    "O": "Ober",
    "U": "Unter",
    "9": "Neun",
    "8": "Acht",
    "7": "Sieben",
}
_GERMAN_SUITS = {"E": "Eichel", "G": "Gras", "H": "Herz", "S": "Schellen"}

PATTERNS: Mapping[str, Pattern] = {
    p.id: p
    for p in (
        Pattern(
            "french",
            FRENCH,
            _FRENCH_RANKS,
            {"S": "Spades", "H": "Hearts", "D": "Diamonds", "C": "Clubs"},
        ),
        # Scopa dealt from an Italian-suited 40-card pack: diamonds are denari.
        Pattern(
            "napoletane",
            FRENCH,
            _ITALIAN_RANKS_ON_FRENCH,
            {"S": "Spade", "H": "Coppe", "D": "Denari", "C": "Bastoni"},
        ),
        Pattern(
            "bresciane",
            BRESCIANE,
            _BRESCIANE_RANKS,
            {"C": "Coppe", "D": "Denari", "S": "Spade", "B": "Bastoni"},
        ),
        Pattern("bavarian", GERMAN, _GERMAN_RANKS, _GERMAN_SUITS),
        Pattern("double_german", GERMAN, _GERMAN_RANKS, _GERMAN_SUITS),
        Pattern("south_tyrolean", GERMAN, {**_GERMAN_RANKS, "A": "Daus"}, _GERMAN_SUITS),
        Pattern(
            "salzburg",
            GERMAN,
            {**_GERMAN_RANKS, "A": "Sau"},
            {"E": "Eichel", "G": "Laub", "H": "Herz", "S": "Schellen"},
        ),
    )
}


def patterns_for(family: Family) -> tuple[str, ...]:
    """The pattern ids that can name cards of ``family``."""
    return tuple(p.id for p in PATTERNS.values() if p.family is family)
