"""Hand decomposition for the Dou Dizhu AI: how many plays a hand needs to go out.

A hand (packed rank counts, engine.doudizhu.combos) is split into *groups*,
each one play: chains (straights, pair sequences, airplanes) chosen by a
memoised search, then rockets, bombs, triples (each carrying the lowest
single or pair as its kicker), pairs and singles.  The :func:`cost` of a
hand is ``10 × plays`` minus the control value of its high groups (twos,
jokers, bombs, the rocket), plus a small penalty for low singles and pairs,
which are the hardest to get rid of.  Lower is better: a move is good when
it lowers the cost of what is left (:func:`delta`).
"""

from __future__ import annotations

from itertools import islice
from typing import Any, Final, NamedTuple

from engine.doudizhu.combos import ACE, BLACK_JOKER, NUM_RANKS, RED_JOKER, TWO

PLAY_COST: Final = 10.0
BOMB_VALUE: Final = 12.0
ROCKET_VALUE: Final = 14.0
"""Control value of a bomb (plus its rank / 6) and of the rocket, in cost units."""
_SHIFTS: Final = tuple(4 * r for r in range(NUM_RANKS))
_MEMO_LIMIT = 200_000
_PLAN_LIMIT = 4_000
"""Memo sizes: costs are plain ints and floats (the garbage collector skips them);
plans are tuples it must scan, so fewer are kept (large memos mean long GC pauses)."""


class Group(NamedTuple):
    """One planned play: combination name, packed counts, main rank, chain length."""

    combo: str
    packed: int
    main: int
    length: int = 1


class Plan(NamedTuple):
    """The best split found: its cost, number of plays and groups (kickers attached)."""

    cost: float
    plays: int
    groups: tuple[Group, ...]


def _trim(memo: dict[int, Any], limit: int) -> None:
    """Forget the oldest quarter of a full memo (insertion order), keep the rest warm.

    The memos are shared by every thread deciding at once (the server's AI
    workers), so two threads may trim the same memo together: a key another
    thread removed first is skipped, and a memo changed while its oldest keys
    are listed is simply emptied.
    """
    if len(memo) >= limit:
        try:
            oldest = list(islice(memo, limit // 4))
        except RuntimeError:  # another thread changed the memo meanwhile
            memo.clear()
            return
        for key in oldest:
            memo.pop(key, None)


def _counts(packed: int) -> list[int]:
    return [(packed >> s) & 15 for s in _SHIFTS]


def _single_value(r: int) -> float:
    return (0.0, 1.0, 2.5, 3.5, 4.5)[r - 10] if r > 10 else 0.0


def _rest(c: list[int], cap: int) -> tuple[float, int, list[Group]]:
    """Cost, plays and groups of a hand with no chains; ``cap`` kickers owed to airplanes."""
    groups: list[Group] = []
    value = 0.0
    plays = 0
    if c[BLACK_JOKER] and c[RED_JOKER]:
        groups.append(Group("rocket", (1 << 52) | (1 << 56), RED_JOKER))
        value += ROCKET_VALUE
        plays += 1
        jokers: tuple[int, ...] = ()
    else:
        jokers = tuple(r for r in (BLACK_JOKER, RED_JOKER) if c[r])
    triples = []
    pairs = []
    singles = []
    for r in range(TWO + 1):
        n = c[r]
        if n == 4:
            groups.append(Group("bomb", 4 << (4 * r), r))
            value += BOMB_VALUE + r / 6.0
            plays += 1
        elif n == 3:
            triples.append(r)
        elif n == 2:
            pairs.append(r)
        elif n == 1:
            singles.append(r)
    singles.extend(jokers)
    cap += len(triples)
    # kickers: the lowest singles, then the lowest pairs, never a two or a joker
    kick_singles = [r for r in singles if r < TWO][:cap]
    cap -= len(kick_singles)
    kick_pairs = [r for r in pairs if r < TWO][:cap] if cap > 0 else []
    singles = [r for r in singles if r not in kick_singles]
    pairs = [r for r in pairs if r not in kick_pairs]
    penalty = 0.0
    for t in triples:
        if kick_singles:
            k = kick_singles.pop(0)
            groups.append(Group("triple_single", (3 << (4 * t)) | (1 << (4 * k)), t))
        elif kick_pairs:
            k = kick_pairs.pop(0)
            groups.append(Group("triple_pair", (3 << (4 * t)) | (2 << (4 * k)), t))
        else:
            groups.append(Group("triple", 3 << (4 * t), t))
        value += 3.0 if t == TWO else 1.0 if t == ACE else 0.0
        plays += 1
    for p in pairs:
        groups.append(Group("pair", 2 << (4 * p), p))
        value += 3.0 if p == TWO else 1.0 if p == ACE else 0.0
        penalty += max(0, ACE - 1 - p) * 0.2
        plays += 1
    for s in singles:
        groups.append(Group("single", 1 << (4 * s), s))
        value += _single_value(s)
        penalty += max(0, ACE - 1 - s) * 0.2
        plays += 1
    # the kickers left over are the airplanes' wings: listed, not counted as plays
    groups.extend(Group("single", 1 << (4 * k), k) for k in kick_singles)
    groups.extend(Group("pair", 2 << (4 * k), k) for k in kick_pairs)
    return PLAY_COST * plays - value + penalty, plays, groups


_ONES: Final = sum(1 << (4 * r) for r in range(ACE + 1))
"""One bit per chain rank (3..A) at the bottom of its nibble."""


def _has(packed: int, width: int) -> int:
    """The chain ranks holding at least ``width`` cards, one bit per rank."""
    if width == 1:
        return (packed | (packed >> 1) | (packed >> 2)) & _ONES
    if width == 2:
        return ((packed >> 1) | (packed >> 2)) & _ONES
    return ((packed & (packed >> 1)) | (packed >> 2)) & _ONES


Chain = tuple[str, int, int, int, int]
_CHAIN_TABLE: Final[dict[int, tuple[Chain, ...]]] = {}
"""The chains of a width (1–3) over the ranks ``bits``, by ``bits << 2 | width``."""
_KINDS: Final = ((1, "straight", 5), (2, "pair_sequence", 3), (3, "airplane", 2))


def _chains_of(width: int, combo: str, least: int, bits: int) -> tuple[Chain, ...]:
    key = bits << 2 | width
    found = _CHAIN_TABLE.get(key)
    if found is not None:
        return found
    out = []
    r = 0
    while r <= ACE:
        if not bits >> (4 * r) & 1:
            r += 1
            continue
        start = r
        while r <= ACE and bits >> (4 * r) & 1:
            r += 1
        run = r - start
        for length in range(least, run + 1):
            for s in range(start, start + run - length + 1):
                packed = sum(width << (4 * k) for k in range(s, s + length))
                out.append((combo, width, s, length, packed))
    found = _CHAIN_TABLE[key] = tuple(out)
    return found


def _chains(packed: int) -> list[Chain]:
    """Every chain the hand holds: (combo, width, start, length, packed)."""
    out: list[Chain] = []
    for width, combo, least in _KINDS:
        bits = _has(packed, width)
        if bits:
            out.extend(_chains_of(width, combo, least, bits))
    return out


def _rest_cost(packed: int, cap: int) -> float:
    """:func:`_rest`'s cost alone, without building the groups (the hot path)."""
    value = 0.0
    penalty = 0.0
    plays = 0
    loose: list[int] = []  # ranks of singles (<< 1) and pairs (<< 1 | 1) below two
    bj = (packed >> 52) & 15
    rj = (packed >> 56) & 15
    if bj and rj:
        value += ROCKET_VALUE
        plays += 1
    else:
        if bj:
            value += 3.5
            plays += 1
        if rj:
            value += 4.5
            plays += 1
    r = 0
    p = packed & ((1 << 52) - 1)
    while p:
        n = p & 15
        if n == 1:
            if r < TWO:
                loose.append(r << 1)
            else:
                value += 2.5
                plays += 1
        elif n == 2:
            if r < TWO:
                loose.append(r << 1 | 1)
            else:
                value += 3.0
                plays += 1
        elif n == 3:
            cap += 1
            plays += 1
            value += 3.0 if r == TWO else 1.0 if r == ACE else 0.0
        elif n == 4:
            value += BOMB_VALUE + r / 6.0
            plays += 1
        p >>= 4
        r += 1
    if cap:
        # kickers: the lowest singles first, then the lowest pairs
        sing = [k for k in loose if not k & 1]
        pairs = [k for k in loose if k & 1]
        take = min(cap, len(sing))
        rest = sing[take:]
        cap -= take
        take = min(cap, len(pairs))
        loose = rest + pairs[take:]
    for k in loose:
        rank = k >> 1
        plays += 1
        if rank == ACE:
            value += 1.0
        elif rank < ACE - 1:
            penalty += (ACE - 1 - rank) * 0.2
    return PLAY_COST * plays - value + penalty


_COST_MEMO: Final[dict[int, float]] = {}


def _search_cost(packed: int, cap: int) -> float:
    key = packed << 4 | cap  # cap < 16: at most 6 airplane links
    found = _COST_MEMO.get(key)
    if found is not None:
        return found
    best = _rest_cost(packed, cap)
    for _, width, s, length, chain in _chains(packed):
        total = _search_cost(packed - chain, cap + (length if width == 3 else 0)) + PLAY_COST
        if s + length - 1 == ACE:
            total -= 1.0
        if total < best:
            best = total
    _trim(_COST_MEMO, _MEMO_LIMIT)
    _COST_MEMO[key] = best
    return best


def _search(packed: int, cap: int) -> Plan:
    """The cheapest split, built along the path :func:`_search_cost` chose
    (:func:`_path`), so the plan and :func:`cost` always agree; only the chosen
    path builds groups (the costs of the alternatives are memoised)."""
    total_cost = _search_cost(packed, cap)
    path, packed, cap = _path(packed, cap)
    chosen = [Group(combo, part, s + length - 1, length) for combo, _, s, length, part in path]
    _, count, groups = _rest(_counts(packed), cap)
    return Plan(total_cost, count + len(chosen), (*chosen, *groups))


def _path(packed: int, cap: int) -> tuple[list[Chain], int, int]:
    """The chains of the cheapest split, in the order taken, and what is left
    (packed counts, kickers owed to airplanes).

    Each step takes the first chain (in :func:`_chains` order) whose remainder
    is strictly cheaper than the best found before it, exactly as
    :func:`_search_cost` does.
    """
    chosen: list[Chain] = []
    while True:
        best = _rest_cost(packed, cap)
        pick: Chain | None = None
        for chain in _chains(packed):
            _, width, s, length, part = chain
            total = _search_cost(packed - part, cap + (length if width == 3 else 0)) + PLAY_COST
            if s + length - 1 == ACE:
                total -= 1.0
            if total < best:
                best, pick = total, chain
        if pick is None:
            return chosen, packed, cap
        chosen.append(pick)
        _, width, s, length, part = pick
        packed -= part
        cap += length if width == 3 else 0


def plan(packed: int) -> Plan:
    """The cheapest split of the hand ``packed`` into plays (airplanes get their wings)."""
    if packed == 0:
        return Plan(0.0, 0, ())
    found = _PLANS.get(packed)
    if found is None:
        best = _search(packed, 0)
        found = Plan(best.cost, best.plays, _attach_wings(best.groups))
        _trim(_PLANS, _PLAN_LIMIT)
        _PLANS[packed] = found
    return found


_PLANS: Final[dict[int, Plan]] = {}


def plays(packed: int) -> int:
    """``plan(packed).plays`` without building the plan: the chains of its path
    (:func:`_path`) and the plays of the rest, memoised as plain ints.

    For the auction's strength rule (engine.doudizhu.ai.normal.bid_strength),
    which the search's world sampler applies to whole 17-card hands thousands
    of times a decision: building and keeping each plan cost twice the search,
    and pushed the plans of the play-outs' small hands out of :data:`_PLANS`.
    """
    if packed == 0:
        return 0
    found = _PLAYS.get(packed)
    if found is not None:
        return found
    path, rest, cap = _path(packed, 0)
    found = len(path) + _rest_plays(rest, cap)
    _trim(_PLAYS, _MEMO_LIMIT)
    _PLAYS[packed] = found
    return found


_PLAYS: Final[dict[int, int]] = {}


def plays_at_most(packed: int) -> int:
    """An upper bound of :func:`plays`, in a few steps (no search).

    ``P0`` is the plays of the split without chains, whose cost ``C0`` the
    chosen split's cost ``C`` never exceeds.  Write ``C = 10·P − A − V + N``
    (``A`` its chains that end at an ace, ``V`` and ``N`` its groups' value
    and penalty).  Chains take no two and no joker, and leave no bomb that was
    not one already, so ``A + V − V0`` is at most the aces held (each chain
    that ends at an ace takes one, and the rest are one group worth at most
    1); ``N ≥ 0``.  Hence ``10·(P − P0) ≤ N0 + aces``: ``P ≤ P0 + ⌊(N0 +
    aces) / 10⌋``, in whole tenths here (a penalty is 0.2 per rank below
    the king).
    """
    count, loose = _rest_loose(packed, 0)
    tenths = sum(2 * (ACE - 1 - k) for k in loose if k < ACE - 1)
    aces = (packed >> (4 * ACE)) & 15
    return count + len(loose) + (tenths + 10 * aces) // 100


def _rest_plays(packed: int, cap: int) -> int:
    """:func:`_rest`'s plays alone (``cap`` kickers owed to airplanes)."""
    count, loose = _rest_loose(packed, cap)
    return count + len(loose)


def _rest_loose(packed: int, cap: int) -> tuple[int, list[int]]:
    """:func:`_rest`'s plays that are not loose (one per rocket, lone joker, group of
    twos, bomb and triple), and the ranks of the loose singles and pairs below two
    that no triple or airplane takes as its kicker (the lowest singles go first,
    then the lowest pairs; ``cap`` kickers owed to airplanes)."""
    count = 0
    bj = (packed >> 52) & 15
    rj = (packed >> 56) & 15
    if bj and rj:
        count += 1
    else:
        count += (1 if bj else 0) + (1 if rj else 0)
    singles: list[int] = []
    pairs: list[int] = []
    r = 0
    p = packed & ((1 << 52) - 1)
    while p:
        n = p & 15
        if n == 3:
            cap += 1
            count += 1
        elif n == 4 or (r == TWO and n):
            count += 1
        elif n == 1:
            singles.append(r)
        elif n == 2:
            pairs.append(r)
        p >>= 4
        r += 1
    take = min(cap, len(singles))
    return count, singles[take:] + pairs[min(cap - take, len(pairs)) :]


def cost(packed: int) -> float:
    """The cost of the hand ``packed`` (lower is better; -100 for an empty hand)."""
    if packed == 0:
        return -100.0
    return _search_cost(packed, 0)


def _attach_wings(groups: tuple[Group, ...]) -> tuple[Group, ...]:
    """Give each bare airplane the lowest single (or pair) groups as wings."""
    out = list(groups)
    for g in [h for h in groups if h.combo == "airplane"]:
        i = out.index(g)
        for kind, name in (("single", "airplane_single_wings"), ("pair", "airplane_pair_wings")):
            core = range(g.main - g.length + 1, g.main + 1)
            loose = sorted(
                (h for h in out if h.combo == kind and h.main < TWO and h.main not in core),
                key=lambda h: h.main,
            )
            if len(loose) >= g.length:
                wings = loose[: g.length]
                packed = g.packed + sum(w.packed for w in wings)
                out[i] = Group(name, packed, g.main, g.length)
                for w in wings:
                    out.remove(w)
                break
    return tuple(out)
