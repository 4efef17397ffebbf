"""Every combination type, its refused near misses and the beating rules (Combinations, Tricks)."""

from __future__ import annotations

import random
from itertools import product

import pytest

from engine.doudizhu.combos import (
    COMBOS,
    RANKS,
    Move,
    beats,
    classify,
    follow_moves,
    lead_moves,
    pack,
    readings,
    unpack,
)

_CHAR = {name[0]: r for r, name in enumerate(RANKS)}  # "B" = BJ, "R" = RJ


def counts(text: str) -> tuple[int, ...]:
    """Rank counts from one character per card: ``"333444BR"`` (B, R: the jokers)."""
    c = [0] * 15
    for ch in text.replace(" ", ""):
        c[_CHAR[ch]] += 1
    return tuple(c)


def read(text: str, combo: str) -> Move | None:
    return classify(counts(text), combo)


VALID = [
    ("single", "3", "3"),
    ("single", "R", "R"),
    ("pair", "99", "9"),
    ("pair", "22", "2"),
    ("triple", "QQQ", "Q"),
    ("triple_single", "777 3", "7"),
    ("triple_single", "777 B", "7"),  # a joker may be the single
    ("triple_pair", "888 44", "8"),
    ("straight", "34567", "7"),
    ("straight", "3456789TJQKA", "A"),  # the longest: 3 up to A
    ("pair_sequence", "334455", "5"),
    ("pair_sequence", "QQKKAA", "A"),
    ("airplane", "333444", "4"),
    ("airplane", "JJJQQQKKKAAA", "A"),
    ("airplane_single_wings", "333444 59", "4"),
    ("airplane_single_wings", "333444 55", "4"),  # a pair used as two singles
    ("airplane_single_wings", "555666777 3 4 R", "7"),  # one joker is fine
    ("airplane_pair_wings", "333444 55 77", "4"),
    ("airplane_pair_wings", "TTTJJJQQQ 33 44 22", "Q"),
    ("four_two_singles", "6666 3 9", "6"),
    ("four_two_singles", "6666 99", "6"),  # the two may be a pair
    ("four_two_singles", "6666 3 B", "6"),
    ("four_two_pairs", "6666 33 99", "6"),
    ("bomb", "2222", "2"),
    ("bomb", "3333", "3"),
    ("rocket", "BR", "R"),
]


@pytest.mark.parametrize(("combo", "text", "main"), VALID)
def test_each_combination_type_is_read_with_its_main_rank(combo: str, text: str, main: str) -> None:
    move = read(text, combo)
    assert move is not None, f"{text} should read as {combo}"
    assert RANKS[move.main][0] == main
    assert move.size == len(text.replace(" ", ""))
    # and the generator offers it to a hand holding exactly those cards
    assert move in lead_moves(pack(counts(text)))


REFUSED = [
    # the near misses of the issue
    ("airplane_single_wings", "333444 34", "wings of a core rank"),
    ("four_two_pairs", "3333 44 44", "two pairs of one rank"),
    ("airplane_single_wings", "333444 BR", "both jokers as wings"),
    ("straight", "JQKA2", "a straight with a 2"),
    ("straight", "3456", "a 4-card straight"),
    # more of the table's restrictions
    ("straight", "TJQKA B", "a straight with a joker"),
    ("straight", "34568", "not consecutive"),
    ("straight", "334567", "a rank twice"),
    ("pair", "BR", "the two jokers are the rocket, not a pair"),
    ("pair", "34", "two ranks"),
    ("pair_sequence", "3344", "only two pairs"),
    ("pair_sequence", "KKAA22", "a pair of 2s"),
    ("pair_sequence", "334466", "a gap"),
    ("airplane", "333", "a single triple"),
    ("airplane", "KKKAAA222", "triples of 2s"),
    ("airplane", "333555", "not consecutive"),
    ("airplane_single_wings", "333444 5", "too few wings"),
    ("airplane_single_wings", "333444 567", "too many wings"),
    ("airplane_single_wings", "333444555 999", "three of one rank as wings"),
    ("airplane_single_wings", "333444555666 7777", "a bomb as wings"),
    ("airplane_single_wings", "333444555 222", "three 2s as wings"),
    ("airplane_single_wings", "3333444 5", "a core rank's fourth card as a wing"),
    ("airplane_pair_wings", "333444 55 55", "pair wings of one rank"),
    ("airplane_pair_wings", "333444 55 6", "a pair wing that is no pair"),
    ("airplane_pair_wings", "333444 33 55", "a pair wing of a core rank"),
    ("airplane_pair_wings", "333444 55 66 77", "too many pairs"),
    ("triple_single", "3333", "a kicker of the triple's rank"),
    ("triple_single", "333 45", "two kickers"),
    ("triple_pair", "333 45", "a kicker pair that is no pair"),
    ("triple_pair", "333 BR", "the jokers are no pair"),
    ("four_two_singles", "6666 BR", "both jokers"),
    ("four_two_singles", "6666 3", "one single"),
    ("four_two_singles", "6666 345", "three singles"),
    ("four_two_pairs", "6666 33 9", "a pair missing"),
    ("four_two_pairs", "6666 3333", "a bomb as the two pairs"),
    ("bomb", "333", "three cards"),
    ("bomb", "3333 4", "five cards"),
    ("rocket", "B", "one joker"),
    ("single", "34", "two cards"),
]


@pytest.mark.parametrize(("combo", "text", "why"), REFUSED)
def test_near_misses_are_refused(combo: str, text: str, why: str) -> None:
    assert read(text, combo) is None, why


def test_kickers_never_share_the_main_part_rank() -> None:
    universe = lead_moves(pack(tuple([4] * 13 + [1, 1])))
    for move in universe:
        if move.combo in ("triple_single", "triple_pair"):
            assert len(move.picks) == 2
        if move.combo.startswith("airplane_"):
            core = [r for r, n in move.picks if n == 3]
            assert len(core) == move.length
        if move.combo.startswith("four_two"):
            assert sum(1 for _, n in move.picks if n == 4) == 1


def test_no_card_set_has_two_readings_under_these_rules() -> None:
    """Every valid set of ranks is read one way only, so `combo` names the one reading.

    The generator lists every reading separately; this checks (exhaustively,
    over every combination a full deck allows) that the table of the rules
    never makes two of them for one set.
    """
    universe = lead_moves(pack(tuple([4] * 13 + [1, 1])))
    assert len(universe) > 30_000
    seen: dict[int, Move] = {}
    for move in universe:
        assert move.packed not in seen, (move, seen.get(move.packed))
        seen[move.packed] = move
        assert readings(unpack(move.packed)) == (move,)


def _sub_multisets(c: tuple[int, ...]) -> list[tuple[int, ...]]:
    return [tuple(p) for p in product(*(range(n + 1) for n in c)) if any(p)]


def test_lead_moves_are_exactly_the_valid_readings_of_every_subset() -> None:
    """Brute force: classify every sub-multiset of small random hands."""
    rng = random.Random(3)
    deck = [r for r in range(13) for _ in range(4)] + [13, 14]
    for _ in range(60):
        c = [0] * 15
        for r in rng.sample(deck, rng.randint(1, 10)):
            c[r] += 1
        hand = tuple(c)
        expected = {m for sub in _sub_multisets(hand) for m in readings(sub)}
        got = lead_moves(pack(hand))
        assert len(got) == len(set(got)), "a move listed twice"
        assert set(got) == expected, hand


def test_follow_moves_are_the_lead_moves_that_beat() -> None:
    rng = random.Random(4)
    deck = [r for r in range(13) for _ in range(4)] + [13, 14]
    universe = lead_moves(pack(tuple([4] * 13 + [1, 1])))
    for _ in range(150):
        c = [0] * 15
        for r in rng.sample(deck, rng.choice((5, 12, 17, 20))):
            c[r] += 1
        packed = pack(tuple(c))
        leads = lead_moves(packed)
        for target in rng.sample(universe, 20) + rng.sample(leads, min(5, len(leads))):
            expected = {m for m in leads if beats(m, target)}
            got = follow_moves(packed, target)
            assert len(got) == len(set(got))
            assert set(got) == expected, (c, target)


@pytest.mark.parametrize(
    ("move", "target", "ok"),
    [
        (("4", "single"), ("3", "single"), True),
        (("3", "single"), ("3", "single"), False),  # equal is not higher
        (("2", "single"), ("A", "single"), True),  # 2 above A
        (("B", "single"), ("2", "single"), True),
        (("R", "single"), ("B", "single"), True),
        (("44", "pair"), ("3", "single"), False),  # another type
        (("45678", "straight"), ("34567", "straight"), True),
        (("456789", "straight"), ("34567", "straight"), False),  # another size
        (("TJQKA", "straight"), ("9TJQK", "straight"), True),
        (("444 3", "triple_single"), ("333 K", "triple_single"), True),  # kickers do not count
        (("444 3", "triple_single"), ("333 22", "triple_pair"), False),
        (("444555 66", "airplane_single_wings"), ("333444 55 77", "airplane_pair_wings"), False),
        (("444555 67", "airplane_single_wings"), ("333444 2B", "airplane_single_wings"), True),
        (("444555666", "airplane"), ("333444", "airplane"), False),  # more triples
        (("7777 34", "four_two_singles"), ("6666 AA", "four_two_singles"), True),
        (("7777 34", "four_two_singles"), ("6666 33 AA", "four_two_pairs"), False),
        (("3333", "bomb"), ("3456789TJQKA", "straight"), True),  # a bomb beats ordinary play
        (("3333", "bomb"), ("2222 AA KK", "four_two_pairs"), True),  # four + two is no bomb
        (("4444", "bomb"), ("3333", "bomb"), True),
        (("3333", "bomb"), ("4444", "bomb"), False),
        (("BR", "rocket"), ("2222", "bomb"), True),
        (("2222", "bomb"), ("BR", "rocket"), False),
        (("BR", "rocket"), ("3", "single"), True),
    ],
)
def test_beating(move: tuple[str, str], target: tuple[str, str], ok: bool) -> None:
    m, t = read(*move), read(*target)
    assert m is not None and t is not None
    assert beats(m, t) is ok


def test_combo_names_are_the_wire_literals() -> None:
    assert set(COMBOS) == {
        "single",
        "pair",
        "triple",
        "triple_single",
        "triple_pair",
        "straight",
        "pair_sequence",
        "airplane",
        "airplane_single_wings",
        "airplane_pair_wings",
        "four_two_singles",
        "four_two_pairs",
        "bomb",
        "rocket",
    }
