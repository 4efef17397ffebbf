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

Speed matters (they are the inner loop of search AIs and random playouts):
n-of-a-kind moves, triples with kickers and every chain come from tables
built at import (chains indexed by the set of ranks holding enough cards, as
bits), wings and kickers are enumerated as packed ints, and leads are
memoised per packed hand.  An n-of-a-kind :class:`Move` also holds its
concrete plays (engine.doudizhu.hands).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations
from typing import Any, Final, Literal, NamedTuple, cast, get_args

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
NUM_RANKS: Final = 15
ACE: Final = 11
TWO: Final = 12
BLACK_JOKER: Final = 13
RED_JOKER: Final = 14

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

    __slots__ = (
        "combo",
        "combo_index",
        "layers",
        "length",
        "main",
        "nibbles",
        "packed",
        "picks",
        "plays",
        "shift",
        "shifts",
        "size",
    )

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
        # the card-mask bits of the move's ranks, and of the ranks it takes 1, 2,
        # 3 and 4 cards of: what its concrete play is cut from (engine.doudizhu.hands)
        self.nibbles = sum(15 << (4 * r) for r, _ in picks)
        layers = [0, 0, 0, 0, 0]
        for r, n in picks:
            layers[n] |= 15 << (4 * r)
        self.layers = (layers[1], layers[2], layers[3], layers[4])
        # n of a kind (one rank): its play for each of the hand's nibbles of that
        # rank, ``plays[(hand >> shift) & 15]``, filled in by engine.doudizhu.hands
        self.shift = 4 * picks[0][0] if len(picks) == 1 else -1
        self.plays: tuple[Any, ...] = ()

    @property
    def is_bomb(self) -> bool:
        """A bomb or the rocket: each doubles the multiplier (End and scoring)."""
        return self.combo == "bomb" or self.combo == "rocket"

    def ranks_text(self) -> str:
        """The ranks of the move as text, weakest first, e.g. ``3334`` or ``BJRJ``."""
        return "".join(RANKS[r] * n for r, n in self.picks)

    def __repr__(self) -> str:
        return f"Move({self.combo}, {self.ranks_text()})"

    def __reduce__(self) -> tuple[Any, tuple[int, int, int, int]]:
        """Unpickle as the interned move (one object per move in every process)."""
        return _intern, (self.combo_index, self.packed, self.main, self.length)


_MOVES: dict[int, Move] = {}
"""Every move made so far, by ``packed << 4 | combo index`` (a move's identity)."""


def _intern(index: int, packed: int, main: int, length: int = 1) -> Move:
    key = (packed << 4) | index
    m = _MOVES.get(key)
    if m is None:
        picks = tuple(
            (r, (packed >> (4 * r)) & 15) for r in range(NUM_RANKS) if (packed >> (4 * r)) & 15
        )
        m = _MOVES[key] = Move(COMBOS[index], picks, main, length)
    return m


def move_of(combo_index: int, packed: int) -> Move:
    """The move made before (interned) that reads ``packed`` as ``COMBOS[combo_index]``.

    Every move a hand can lead is made when its leads are generated
    (:func:`lead`), so a planned group of a hand whose leads were listed is
    always found; a move never made raises ``KeyError``.
    """
    return _MOVES[(packed << 4) | combo_index]


def all_moves() -> list[Move]:
    """Every move interned so far."""
    return list(_MOVES.values())


def _move(combo: Combo, picks: Picks, main: int, length: int = 1) -> Move:
    return _intern(COMBO_INDEX[combo], sum(n << (4 * r) for r, n in picks), main, length)


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


# -- tables ----------------------------------------------------------------------

_I = COMBO_INDEX
_SINGLE, _PAIR, _TRIPLE, _BOMB = _I["single"], _I["pair"], _I["triple"], _I["bomb"]
_TRIPLE_SINGLE, _TRIPLE_PAIR = _I["triple_single"], _I["triple_pair"]
_STRAIGHT, _PAIR_SEQ, _AIRPLANE = _I["straight"], _I["pair_sequence"], _I["airplane"]
_SINGLE_WINGS, _PAIR_WINGS = _I["airplane_single_wings"], _I["airplane_pair_wings"]
_FOUR_SINGLES, _FOUR_PAIRS = _I["four_two_singles"], _I["four_two_pairs"]
_ROCKET = _I["rocket"]
_BOTH_JOKERS = (1 << (4 * BLACK_JOKER)) | (1 << (4 * RED_JOKER))
_SHIFTS = tuple(4 * r for r in range(NUM_RANKS))
_WIDTH_INDEX = {1: _STRAIGHT, 2: _PAIR_SEQ, 3: _AIRPLANE}
_MIN_LINKS = {1: MIN_CHAIN["straight"], 2: MIN_CHAIN["pair_sequence"], 3: MIN_CHAIN["airplane"]}

# KIND[n][r]: n cards of rank r (single, pair, triple, bomb); None where impossible
KIND: tuple[tuple[Move | None, ...], ...] = tuple(
    tuple(_intern(idx, n << (4 * r), r) if n == 1 or r <= TWO else None for r in range(NUM_RANKS))
    for n, idx in ((0, _SINGLE), (1, _SINGLE), (2, _PAIR), (3, _TRIPLE), (4, _BOMB))
)
# KIND_UPTO[r][c]: the n-of-a-kind moves of rank r a hand holding c of them can make
KIND_UPTO: tuple[tuple[tuple[Move, ...], ...], ...] = tuple(
    tuple(tuple(m for n in range(1, c + 1) if (m := KIND[n][r]) is not None) for c in range(5))
    for r in range(NUM_RANKS)
)
# _TRIPLE_WITH[idx][t][k]: triple of rank t with a single / a pair of rank k
_TRIPLE_WITH: dict[int, tuple[tuple[Move | None, ...], ...]] = {
    idx: tuple(
        tuple(
            _intern(idx, (3 << (4 * t)) + (n << (4 * k)), t)
            if t <= TWO and k != t and (n == 1 or k <= TWO)
            else None
            for k in range(NUM_RANKS)
        )
        for t in range(NUM_RANKS)
    )
    for idx, n in ((_TRIPLE_SINGLE, 1), (_TRIPLE_PAIR, 2))
}


def _chain(width: int, start: int, length: int) -> Move:
    packed = sum(width << (4 * r) for r in range(start, start + length))
    return _intern(_WIDTH_INDEX[width], packed, start + length - 1, length)


# _RUN_CHAINS[width][start][run]: every chain (no wings) inside a run of ranks
_RUN_CHAINS: dict[int, tuple[tuple[tuple[Move, ...], ...], ...]] = {
    w: tuple(
        tuple(
            tuple(
                _chain(w, s, length)
                for length in range(_MIN_LINKS[w], run + 1)
                for s in range(start, start + run - length + 1)
            )
            for run in range(ACE + 2 - start)
        )
        for start in range(ACE + 1)
    )
    for w in (1, 2, 3)
}


_ONES = sum(1 << (4 * r) for r in range(NUM_RANKS))
_CHAIN_RANKS = sum(1 << (4 * r) for r in range(ACE + 1))
"""One bit per rank at the bottom of its nibble: all ranks / the ranks 3..A of chains."""


def ranks_holding(packed: int, n: int) -> int:
    """The ranks holding at least ``n`` cards, one bit per rank (counts are 0..4)."""
    if n == 1:
        return (packed | (packed >> 1) | (packed >> 2)) & _ONES
    if n == 2:
        return ((packed >> 1) | (packed >> 2)) & _ONES
    if n == 3:
        return ((packed & (packed >> 1)) | (packed >> 2)) & _ONES
    return (packed >> 2) & _ONES


def _bits_runs(bits: int) -> list[tuple[int, int]]:
    return _runs([r for r in range(ACE + 1) if bits >> (4 * r) & 1])


def _all_rank_sets() -> list[int]:
    out = [0]
    for r in range(ACE + 1):
        out += [m | (1 << (4 * r)) for m in out]
    return out


def _chains_in(width: int, bits: int) -> tuple[Move, ...]:
    return tuple(
        m
        for start, run in _bits_runs(bits)
        if run >= _MIN_LINKS[width]
        for m in _RUN_CHAINS[width][start][run]
    )


# _CHAINS_OF[width][ranks]: every chain (no wings) a set of ranks 3..A holding
# ``width`` cards each can make; _CORES[ranks]: every airplane core (start, length)
_CHAINS_OF: dict[int, dict[int, tuple[Move, ...]]] = {}
_CORES: dict[int, tuple[tuple[int, int], ...]] = {}


def _build_chain_tables() -> None:
    for w in (1, 2, 3):
        _CHAINS_OF[w] = {bits: _chains_in(w, bits) for bits in _all_rank_sets()}
    for bits in _all_rank_sets():
        _CORES[bits] = tuple(
            (s, length)
            for start, run in _bits_runs(bits)
            for length in range(2, run + 1)
            for s in range(start, start + run - length + 1)
        )


# -- wings and kickers (as packed counts) ----------------------------------------


def _single_kickers(c: Sequence[int], lo: int, hi: int, k: int) -> list[int]:
    """Every multiset of ``k`` attached single cards, packed (Airplane wings, four + two).

    At most two cards of a rank (never three or four), no card of a core rank
    ``lo..hi``, never both jokers.
    """
    avail = [(1 << (4 * r), c[r] >= 2) for r in range(NUM_RANKS) if c[r] and not lo <= r <= hi]
    out: list[int] = []
    _add_single_kickers(avail, 0, k, 0, out)
    if c[BLACK_JOKER] and c[RED_JOKER]:
        out = [w for w in out if w & _BOTH_JOKERS != _BOTH_JOKERS]
    return out


def _add_single_kickers(
    avail: Sequence[tuple[int, bool]], i: int, left: int, acc: int, out: list[int]
) -> None:
    """Append to ``out`` every way to add ``left`` single cards of ``avail[i:]`` to ``acc``.

    A module-level function, not a closure: a recursive closure is a reference
    cycle, garbage that only the cyclic collector frees (one per call, in the
    search's hot path).
    """
    for j in range(i, len(avail)):
        unit, two = avail[j]
        if left == 1:
            out.append(acc + unit)
        else:
            _add_single_kickers(avail, j + 1, left - 1, acc + unit, out)
            if two:
                if left == 2:
                    out.append(acc + 2 * unit)
                else:
                    _add_single_kickers(avail, j + 1, left - 2, acc + 2 * unit, out)


def _pair_kickers(c: Sequence[int], lo: int, hi: int, k: int) -> list[int]:
    """Every set of ``k`` attached pairs of distinct ranks, none of a core rank, packed."""
    units = [2 << (4 * r) for r in range(TWO + 1) if c[r] >= 2 and not lo <= r <= hi]
    return [sum(ps) for ps in combinations(units, k)]


def _airplanes_with_wings(c: Sequence[int], out: list[Move], start: int, length: int) -> None:
    top = start + length - 1
    core = sum(3 << (4 * r) for r in range(start, top + 1))
    for w in _single_kickers(c, start, top, length):
        out.append(_intern(_SINGLE_WINGS, core + w, top, length))
    for w in _pair_kickers(c, start, top, length):
        out.append(_intern(_PAIR_WINGS, core + w, top, length))


def _four_with(c: Sequence[int], out: list[Move], idx: int, f: int) -> None:
    """Four of rank ``f`` + two singles (may be a pair, not both jokers) / two pairs."""
    core = 4 << (4 * f)
    kick = _single_kickers(c, f, f, 2) if idx == _FOUR_SINGLES else _pair_kickers(c, f, f, 2)
    for w in kick:
        out.append(_intern(idx, core + w, f))


def _runs(ranks: list[int]) -> list[tuple[int, int]]:
    """Maximal runs ``(start, length)`` of consecutive ranks up to A in sorted ``ranks``."""
    runs = []
    start = prev = -2
    for r in ranks:
        if r > ACE:
            break
        if r != prev + 1:
            if prev >= 0:
                runs.append((start, prev - start + 1))
            start = r
        prev = r
    if prev >= 0:
        runs.append((start, prev - start + 1))
    return runs


# -- the generators ------------------------------------------------------------------


class Lead(NamedTuple):
    """Every combination a hand can lead (``moves``), in two parts.

    First the n-of-a-kind moves of each rank in ``ranks`` (weakest first; a
    rank holding ``c`` cards gives ``KIND_UPTO[r][c]``: single, pair …), then
    ``others``: rocket, chains, triples with kickers, airplanes, four with two.
    """

    moves: tuple[Move, ...]
    ranks: tuple[int, ...]
    others: tuple[Move, ...]
    whole: Move | None
    """The first of ``moves`` that plays the whole hand, if one does."""


_BLOCK = 5
_BLOCK_MASK = (1 << (4 * _BLOCK)) - 1
_Kinds = tuple[tuple[Move, ...], tuple[int, ...], tuple[int, ...]]
_KINDS_OF_BLOCK: tuple[dict[int, _Kinds], ...] = ({}, {}, {})
"""For the ranks ``5i … 5i+4``: their counts (packed) -> their n-of-a-kind moves, the
ranks held and the five counts; filled as met (at most 5**5 entries each)."""


def _kinds_of_block(block: int, bits: int) -> _Kinds:
    base = _BLOCK * block
    counts = tuple((bits >> (4 * (r - base))) & 15 for r in range(base, base + _BLOCK))
    ranks = tuple(r for r in range(base, base + _BLOCK) if counts[r - base])
    moves = tuple(m for r in ranks for m in KIND_UPTO[r][counts[r - base]])
    found = _KINDS_OF_BLOCK[block][bits] = (moves, ranks, counts)
    return found


def _generate_lead(packed: int) -> Lead:
    low = packed & _BLOCK_MASK
    mid = (packed >> (4 * _BLOCK)) & _BLOCK_MASK
    high = packed >> (8 * _BLOCK)
    k0 = _KINDS_OF_BLOCK[0].get(low) or _kinds_of_block(0, low)
    k1 = _KINDS_OF_BLOCK[1].get(mid) or _kinds_of_block(1, mid)
    k2 = _KINDS_OF_BLOCK[2].get(high) or _kinds_of_block(2, high)
    present = k0[1] + k1[1] + k2[1]
    out: list[Move] = []
    ext = out.extend
    ext(_CHAINS_OF[1][ranks_holding(packed, 1) & _CHAIN_RANKS])
    ext(_CHAINS_OF[2][ranks_holding(packed, 2) & _CHAIN_RANKS])
    has3 = ranks_holding(packed, 3)
    if has3:
        c = k0[2] + k1[2] + k2[2]
        pairs = [r for r in present if c[r] >= 2]
        ts, tp = _TRIPLE_WITH[_TRIPLE_SINGLE], _TRIPLE_WITH[_TRIPLE_PAIR]
        for t in pairs:
            if c[t] >= 3:
                row = ts[t]
                ext([row[k] for k in present if k != t])  # type: ignore[misc]
                row = tp[t]
                ext([row[k] for k in pairs if k != t])  # type: ignore[misc]
        cores = has3 & _CHAIN_RANKS
        ext(_CHAINS_OF[3][cores])
        for s, length in _CORES[cores]:
            _airplanes_with_wings(c, out, s, length)
        for f in pairs:
            if c[f] == 4:
                _four_with(c, out, _FOUR_SINGLES, f)
                _four_with(c, out, _FOUR_PAIRS, f)
    if packed & _BOTH_JOKERS == _BOTH_JOKERS:
        out.append(ROCKET)
    others = tuple(out)
    moves = k0[0] + k1[0] + k2[0] + others
    whole = None
    for m in moves:
        if m.packed == packed:
            whole = m
            break
    return Lead(moves, present, others, whole)


def _generate_follow(packed: int, target: Move) -> tuple[Move, ...]:
    idx = target.combo_index
    if idx == _ROCKET:
        return ()
    lo = target.main
    above = -1 << (4 * (lo + 1))
    out: list[Move] = []
    if idx <= _TRIPLE:  # single, pair, triple
        n = target.size
        row = KIND[n]
        bits = ranks_holding(packed, n) & above
        while bits:
            low = bits & -bits
            out.append(row[low.bit_length() >> 2])  # type: ignore[arg-type]
            bits ^= low
    elif idx != _BOMB:
        c = [(packed >> sh) & 15 for sh in _SHIFTS]
        if idx in (_TRIPLE_SINGLE, _TRIPLE_PAIR):
            need = 1 if idx == _TRIPLE_SINGLE else 2
            table = _TRIPLE_WITH[idx]
            for t in range(lo + 1, TWO + 1):
                if c[t] >= 3:
                    row = table[t]
                    for k in range(NUM_RANKS):
                        if c[k] >= need and k != t:
                            out.append(row[k])  # type: ignore[arg-type]
        elif idx in (_FOUR_SINGLES, _FOUR_PAIRS):
            for f in range(lo + 1, TWO + 1):
                if c[f] == 4:
                    _four_with(c, out, idx, f)
        else:  # a chain: straight, pair sequence, airplane (with or without wings)
            length = target.length
            width = 1 if idx == _STRAIGHT else 2 if idx == _PAIR_SEQ else 3
            for top in range(max(lo + 1, length - 1), ACE + 1):
                start = top - length + 1
                if all(c[r] >= width for r in range(start, top + 1)):
                    if idx in (_SINGLE_WINGS, _PAIR_WINGS):
                        core = sum(3 << (4 * r) for r in range(start, top + 1))
                        kick = (
                            _single_kickers(c, start, top, length)
                            if idx == _SINGLE_WINGS
                            else _pair_kickers(c, start, top, length)
                        )
                        for w in kick:
                            out.append(_intern(idx, core + w, top, length))
                    else:
                        out.append(_chain(width, start, length))
    bits = (packed >> 2) & _ONES
    if bits:
        if idx == _BOMB:
            bits &= above
        row = KIND[4]
        while bits:
            low = bits & -bits
            out.append(row[low.bit_length() >> 2])  # type: ignore[arg-type]
            bits ^= low
    if packed & _BOTH_JOKERS == _BOTH_JOKERS:
        out.append(ROCKET)
    return tuple(out)


ROCKET = _intern(_ROCKET, _BOTH_JOKERS, RED_JOKER)
_build_chain_tables()

_MEMO_LIMIT = 20_000
_LEAD_MEMO: dict[int, Lead] = {}


def lead(packed: int) -> Lead:
    """The leads of the hand ``packed``, memoised (see :class:`Lead`)."""
    found = _LEAD_MEMO.get(packed)
    if found is None:
        if len(_LEAD_MEMO) >= _MEMO_LIMIT:
            _LEAD_MEMO.clear()
        found = _LEAD_MEMO[packed] = _generate_lead(packed)
    return found


def lead_moves(packed: int) -> tuple[Move, ...]:
    """Every combination the hand ``packed`` can lead, each reading once."""
    found = _LEAD_MEMO.get(packed)
    return found.moves if found is not None else lead(packed).moves


def follow_moves(packed: int, target: Move) -> tuple[Move, ...]:
    """Every combination of the hand ``packed`` that beats ``target`` (no pass).

    Not memoised: generating a follow is about as cheap as looking it up, and
    the same (hand, target) pair rarely comes twice.
    """
    return _generate_follow(packed, target)


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
