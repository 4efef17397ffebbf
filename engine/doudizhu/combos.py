"""Dou Dizhu combinations on rank-count vectors (rules/doudizhu.md, Combinations).

Everything here works on *ranks*: suits never matter in Dou Dizhu.  A hand is
a vector of 15 counts (index 0 = ``3`` … 11 = ``A``, 12 = ``2``, 13 = ``BJ``,
14 = ``RJ``), also kept *packed* as one int with 4 bits per rank so it can be
a cheap dictionary key and updated by subtraction.

A :class:`Move` is one combination read one way: its type (``combo``), the
cards it takes of each rank (``picks``), the rank that decides who beats whom
(``main``) and its size.  Moves are interned: the same combination is always
the same object, so comparing and hashing them costs nothing.

* :func:`lead_moves` lists every combination a hand can lead;
* :func:`follow_moves` every combination that beats a given one;
* :func:`classify` reads a card count vector as a stated combination type.

Both generators are memoised per packed hand, since search AIs and random
playouts ask about the same hands again and again.
"""

from __future__ import annotations

from itertools import combinations
from typing import Literal, cast, get_args

Combo = Literal[
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
]
COMBOS: tuple[Combo, ...] = get_args(Combo)
COMBO_INDEX: dict[str, int] = {c: i for i, c in enumerate(COMBOS)}

RANKS = ("3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K", "A", "2", "BJ", "RJ")
"""Rank names by strength, weakest first (rules/doudizhu.md, Cards)."""
NUM_RANKS = 15
ACE = 11
TWO = 12
BLACK_JOKER = 13
RED_JOKER = 14

MIN_CHAIN = {"straight": 5, "pair_sequence": 3, "airplane": 2}
"""Shortest chain of each sequence type: ranks, pairs, core triples."""

Counts = tuple[int, ...]
Picks = tuple[tuple[int, int], ...]


def pack(counts: Counts) -> int:
    """A count vector as one int, 4 bits per rank (rank 0 in the lowest bits)."""
    packed = 0
    for r, n in enumerate(counts):
        packed |= n << (4 * r)
    return packed


def unpack(packed: int) -> Counts:
    """The count vector of a packed hand."""
    return tuple((packed >> (4 * r)) & 15 for r in range(NUM_RANKS))


class Move:
    """One combination, read as one type (interned: compare with ``is``).

    ``picks`` holds ``(rank, count)`` pairs in rank order; ``main`` is the
    rank compared when beating (the highest base rank of a sequence, the rank
    of the triple or four); ``size`` the number of cards; ``packed`` the
    count vector packed like a hand; ``length`` the number of chain links
    (ranks, pairs or core triples; 1 for other types).
    """

    __slots__ = ("combo", "combo_index", "length", "main", "packed", "picks", "shifts", "size")

    def __init__(self, combo: Combo, picks: Picks, main: int, length: int):
        self.combo: Combo = combo
        self.combo_index = COMBO_INDEX[combo]
        self.picks = picks
        self.main = main
        self.length = length
        self.size = sum(n for _, n in picks)
        self.packed = sum(n << (4 * r) for r, n in picks)
        # (bit shift of the rank's nibble, count): what card masks are built from
        self.shifts = tuple((4 * r, n) for r, n in picks)

    @property
    def is_bomb(self) -> bool:
        """A bomb or the rocket: each doubles the multiplier (End and scoring)."""
        return self.combo == "bomb" or self.combo == "rocket"

    def ranks_text(self) -> str:
        """The ranks of the move, e.g. ``333 4`` style text without spaces: ``3334``."""
        return "".join(RANKS[r] * n for r, n in self.picks)

    def __repr__(self) -> str:
        return f"Move({self.combo}, {self.ranks_text()})"


_INTERN: dict[tuple[int, Picks], Move] = {}


def _move(combo: Combo, picks: Picks, main: int, length: int = 1) -> Move:
    key = (COMBO_INDEX[combo], picks)
    m = _INTERN.get(key)
    if m is None:
        m = _INTERN[key] = Move(combo, picks, main, length)
    return m


def beats(move: Move, target: Move) -> bool:
    """Whether ``move`` may be played on ``target`` (Tricks).

    The rocket beats everything; a bomb beats every non-bomb and a lower bomb;
    otherwise the same type and size with a higher main rank.
    """
    if target.combo == "rocket":
        return False
    if move.combo == "rocket":
        return True
    if move.combo == "bomb":
        return target.combo != "bomb" or move.main > target.main
    return move.combo == target.combo and move.size == target.size and move.main > target.main


# -- wings and kickers ---------------------------------------------------------


def _single_kickers(c: Counts, core: range, k: int) -> list[Picks]:
    """Every multiset of ``k`` attached single cards (Airplane wings, four + two).

    At most two cards of a rank (never three or four), no card of a core rank,
    never both jokers.
    """
    avail = [(r, 2 if c[r] >= 2 else 1) for r in range(NUM_RANKS) if c[r] and r not in core]
    out: list[Picks] = []
    chosen: list[tuple[int, int]] = []

    def rec(i: int, left: int) -> None:
        if left == 0:
            out.append(tuple(chosen))
            return
        for j in range(i, len(avail)):
            r, cap = avail[j]
            for n in range(min(cap, left), 0, -1):
                chosen.append((r, n))
                rec(j + 1, left - n)
                chosen.pop()

    rec(0, k)
    if c[BLACK_JOKER] and c[RED_JOKER]:
        out = [w for w in out if not (len(w) >= 2 and w[-1][0] == RED_JOKER and w[-2][0] == 13)]
    return out


def _pair_kickers(c: Counts, core: range, k: int) -> list[Picks]:
    """Every set of ``k`` attached pairs of distinct ranks, none of a core rank."""
    ranks = [r for r in range(TWO + 1) if c[r] >= 2 and r not in core]
    return [tuple((r, 2) for r in rs) for rs in combinations(ranks, k)]


def _merge(core: Picks, wings: Picks) -> Picks:
    return tuple(sorted(core + wings))


# -- generators by type --------------------------------------------------------


def _n_of_a_kind(c: Counts, out: list[Move], combo: Combo, n: int, lo: int) -> None:
    """Singles, pairs, triples and bombs of a rank above ``lo``."""
    top = NUM_RANKS if n == 1 else TWO + 1
    for r in range(lo + 1, top):
        if c[r] >= n:
            out.append(_move(combo, ((r, n),), r))


def _triple_with(c: Counts, out: list[Move], combo: Combo, lo: int) -> None:
    """Triple + single, triple + pair: the kicker of another rank."""
    need = 1 if combo == "triple_single" else 2
    for r in range(lo + 1, TWO + 1):
        if c[r] >= 3:
            for k in range(NUM_RANKS if need == 1 else TWO + 1):
                if k != r and c[k] >= need:
                    out.append(_move(combo, tuple(sorted(((r, 3), (k, need)))), r))


def _four_with(c: Counts, out: list[Move], combo: Combo, lo: int) -> None:
    """Four + two singles (may be a pair, not both jokers) / four + two pairs."""
    for r in range(lo + 1, TWO + 1):
        if c[r] == 4:
            core = range(r, r + 1)
            kick = (
                _single_kickers(c, core, 2)
                if combo == "four_two_singles"
                else _pair_kickers(c, core, 2)
            )
            for w in kick:
                out.append(_move(combo, _merge(((r, 4),), w), r))


def _chains(c: Counts, out: list[Move], combo: Combo, length: int, lo: int) -> None:
    """Sequences of ``length`` links (3 up to A) whose top rank is above ``lo``.

    ``combo`` is a straight, a pair sequence or one of the three airplanes;
    airplanes enumerate their wings.
    """
    width = 1 if combo == "straight" else 2 if combo == "pair_sequence" else 3
    for top in range(max(lo + 1, length - 1), ACE + 1):
        start = top - length + 1
        if any(c[r] < width for r in range(start, top + 1)):
            continue
        core = tuple((r, width) for r in range(start, top + 1))
        if combo == "airplane_single_wings":
            for w in _single_kickers(c, range(start, top + 1), length):
                out.append(_move(combo, _merge(core, w), top, length))
        elif combo == "airplane_pair_wings":
            for w in _pair_kickers(c, range(start, top + 1), length):
                out.append(_move(combo, _merge(core, w), top, length))
        else:
            out.append(_move(combo, core, top, length))


def _runs(c: Counts, width: int) -> list[tuple[int, int]]:
    """Maximal runs ``(start, length)`` of ranks 3..A holding at least ``width`` cards."""
    runs = []
    r = 0
    while r <= ACE:
        if c[r] >= width:
            s = r
            while r <= ACE and c[r] >= width:
                r += 1
            runs.append((s, r - s))
        else:
            r += 1
    return runs


def _all_chains(c: Counts, out: list[Move]) -> None:
    for combo, width in (("straight", 1), ("pair_sequence", 2), ("airplane", 3)):
        shortest = MIN_CHAIN[combo]
        for start, run in _runs(c, width):
            for length in range(shortest, run + 1):
                for s in range(start, start + run - length + 1):
                    top = s + length - 1
                    core = tuple((r, width) for r in range(s, top + 1))
                    out.append(_move(combo, core, top, length))  # type: ignore[arg-type]
                    if width == 3:
                        cr = range(s, top + 1)
                        for w in _single_kickers(c, cr, length):
                            out.append(_move("airplane_single_wings", _merge(core, w), top, length))
                        for w in _pair_kickers(c, cr, length):
                            out.append(_move("airplane_pair_wings", _merge(core, w), top, length))


def _generate_lead(c: Counts) -> tuple[Move, ...]:
    out: list[Move] = []
    _n_of_a_kind(c, out, "single", 1, -1)
    _n_of_a_kind(c, out, "pair", 2, -1)
    _n_of_a_kind(c, out, "triple", 3, -1)
    _triple_with(c, out, "triple_single", -1)
    _triple_with(c, out, "triple_pair", -1)
    _all_chains(c, out)
    _four_with(c, out, "four_two_singles", -1)
    _four_with(c, out, "four_two_pairs", -1)
    _n_of_a_kind(c, out, "bomb", 4, -1)
    if c[BLACK_JOKER] and c[RED_JOKER]:
        out.append(ROCKET)
    return tuple(out)


def _generate_follow(c: Counts, target: Move) -> tuple[Move, ...]:
    out: list[Move] = []
    combo = target.combo
    if combo == "rocket":
        return ()
    if combo in ("single", "pair", "triple"):
        _n_of_a_kind(c, out, combo, target.size, target.main)
    elif combo in ("triple_single", "triple_pair"):
        _triple_with(c, out, combo, target.main)
    elif combo in ("four_two_singles", "four_two_pairs"):
        _four_with(c, out, combo, target.main)
    elif combo != "bomb":
        _chains(c, out, combo, target.length, target.main)
    _n_of_a_kind(c, out, "bomb", 4, target.main if combo == "bomb" else -1)
    if c[BLACK_JOKER] and c[RED_JOKER]:
        out.append(ROCKET)
    return tuple(out)


ROCKET = _move("rocket", ((BLACK_JOKER, 1), (RED_JOKER, 1)), RED_JOKER)

_MEMO_LIMIT = 200_000
_LEAD_MEMO: dict[int, tuple[Move, ...]] = {}
_FOLLOW_MEMO: dict[tuple[int, Move], tuple[Move, ...]] = {}


def lead_moves(packed: int) -> tuple[Move, ...]:
    """Every combination the hand ``packed`` can lead, each reading once."""
    moves = _LEAD_MEMO.get(packed)
    if moves is None:
        if len(_LEAD_MEMO) >= _MEMO_LIMIT:
            _LEAD_MEMO.clear()
        moves = _LEAD_MEMO[packed] = _generate_lead(unpack(packed))
    return moves


def follow_moves(packed: int, target: Move) -> tuple[Move, ...]:
    """Every combination of the hand ``packed`` that beats ``target`` (no pass)."""
    key = (packed, target)
    moves = _FOLLOW_MEMO.get(key)
    if moves is None:
        if len(_FOLLOW_MEMO) >= _MEMO_LIMIT:
            _FOLLOW_MEMO.clear()
        moves = _FOLLOW_MEMO[key] = _generate_follow(unpack(packed), target)
    return moves


# -- reading a given card set ----------------------------------------------------


def _consecutive(ranks: list[int]) -> bool:
    return ranks[-1] - ranks[0] == len(ranks) - 1 and ranks[-1] <= ACE


def classify(counts: Counts, name: str) -> Move | None:
    """``counts`` read as the combination ``name``, or ``None`` if that reading is invalid.

    Implements the table of Combinations with every wing and kicker rule.
    """
    if name not in COMBO_INDEX:
        return None
    combo = cast(Combo, name)
    present = [r for r in range(NUM_RANKS) if counts[r]]
    if not present:
        return None
    picks = tuple((r, counts[r]) for r in present)
    by_count: dict[int, list[int]] = {}
    for r in present:
        by_count.setdefault(counts[r], []).append(r)
    shape = sorted(counts[r] for r in present)
    size = sum(shape)
    jokers = counts[BLACK_JOKER] and counts[RED_JOKER]
    if combo == "single":
        return _move(combo, picks, present[0]) if size == 1 else None
    if combo in ("pair", "triple", "bomb"):
        n = {"pair": 2, "triple": 3, "bomb": 4}[combo]
        if shape == [n] and present[0] <= TWO:
            return _move(combo, picks, present[0])
        return None
    if combo == "rocket":
        return ROCKET if picks == ROCKET.picks else None
    if combo == "triple_single":
        return _move(combo, picks, by_count[3][0]) if shape == [1, 3] else None
    if combo == "triple_pair":
        return _move(combo, picks, by_count[3][0]) if shape == [2, 3] else None
    if combo in ("straight", "pair_sequence", "airplane"):
        width = {"straight": 1, "pair_sequence": 2, "airplane": 3}[combo]
        if set(shape) == {width} and len(present) >= MIN_CHAIN[combo] and _consecutive(present):
            return _move(combo, picks, present[-1], len(present))
        return None
    if combo in ("airplane_single_wings", "airplane_pair_wings"):
        core = by_count.get(3, [])
        length = len(core)
        if length < 2 or not _consecutive(core):
            return None
        wings = [r for r in present if counts[r] != 3]
        if combo == "airplane_single_wings":
            ok = (
                all(counts[r] <= 2 for r in wings)
                and sum(counts[r] for r in wings) == length
                and not jokers
            )
        else:
            ok = all(counts[r] == 2 for r in wings) and len(wings) == length
        return _move(combo, picks, core[-1], length) if ok else None
    if combo in ("four_two_singles", "four_two_pairs"):
        fours = by_count.get(4, [])
        if len(fours) != 1:
            return None
        others = [r for r in present if r != fours[0]]
        if combo == "four_two_singles":
            ok = size == 6 and not jokers
        else:
            ok = len(others) == 2 and all(counts[r] == 2 for r in others)
        return _move(combo, picks, fours[0]) if ok else None
    return None


def readings(counts: Counts) -> tuple[Move, ...]:
    """Every valid reading of a count vector (usually one, none if not a combination)."""
    out = []
    for combo in COMBOS:
        m = classify(counts, combo)
        if m is not None:
            out.append(m)
    return tuple(out)
