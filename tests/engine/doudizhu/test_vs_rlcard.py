"""Differential test of the legal-move generator against RLCard's Dou Dizhu.

RLCard (``rlcard`` from PyPI, a test dependency) names moves by rank strings
such as ``"33344456"`` (``B``/``R`` the jokers).  Its rules differ from
rules/doudizhu.md in known places, mapped here explicitly:

* **Wings of three cards of one rank.**  RLCard lets airplane single wings
  hold three cards of one rank unless that rank is next to the core
  (``333444555`` + ``999`` or + ``222``); our rules refuse wings that contain
  three or four cards of one rank.  Those moves are RLCard-only.
* **Chain-length caps.**  RLCard caps straights at 12, pair sequences at 10
  pairs, airplanes at 6 triples, with single wings at 5 and pair wings at 4.
  With at most 20 cards in hand these are exactly the longest chains our
  rules allow, so the caps never differ; the test checks that no move of
  ours exceeds them.
* **Jokers.**  Both sides refuse the two jokers as a pair, as wings or as
  the two singles of four + two, and allow one joker as a kicker.

Every other move must agree both ways, on leads and on follows.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass

from rlcard.games.doudizhu.judger import DoudizhuJudger
from rlcard.games.doudizhu.utils import CARD_TYPE, get_gt_cards

from engine.doudizhu.combos import RANKS, Move, follow_moves, lead_moves, pack
from engine.doudizhu.game import read_play
from engine.doudizhu.state import Pass, Play

from .helpers import GAME, OPTIONS

RL_CHAR = [name[0] for name in RANKS]  # '3' … '2', 'B', 'R'
RL_TYPE = {
    "single": "solo",
    "pair": "pair",
    "triple": "trio",
    "triple_single": "trio_solo",
    "triple_pair": "trio_pair",
    "straight": "solo_chain_{}",
    "pair_sequence": "pair_chain_{}",
    "airplane": "trio_chain_{}",
    "airplane_single_wings": "trio_solo_chain_{}",
    "airplane_pair_wings": "trio_pair_chain_{}",
    "four_two_singles": "four_two_solo",
    "four_two_pairs": "four_two_pair",
    "bomb": "bomb",
    "rocket": "rocket",
}
RL_CAPS = {
    "straight": 12,
    "pair_sequence": 10,
    "airplane": 6,
    "airplane_single_wings": 5,
    "airplane_pair_wings": 4,
}
DECK = [r for r in range(13) for _ in range(4)] + [13, 14]


def rl_text(move: Move) -> str:
    return "".join(RL_CHAR[r] * n for r, n in move.picks)


def rl_type(move: Move) -> str:
    return RL_TYPE[move.combo].format(move.length)


def rlcard_only(text: str) -> bool:
    """The known difference: airplane single wings holding three cards of one rank."""
    counts = Counter(text)
    for kind, weight in CARD_TYPE[0].get(text, []):
        if kind.startswith("trio_solo_chain_"):
            links = int(kind.rsplit("_", 1)[1])
            start = int(weight) - 1  # RLCard weighs these chains by start + 1
            core = {RL_CHAR[r] for r in range(start, start + links)}
            if all(counts[ch] == 3 for ch in core) and any(
                n >= 3 for ch, n in counts.items() if ch not in core
            ):
                return True
    return False


def random_hand(rng: random.Random, size: int) -> tuple[int, ...]:
    c = [0] * 15
    for r in rng.sample(DECK, size):
        c[r] += 1
    return tuple(c)


def hand_text(c: tuple[int, ...]) -> str:
    return "".join(RL_CHAR[r] * n for r, n in enumerate(c))


@dataclass
class _Card:
    rank: str
    suit: str


class _Player:
    """What ``get_gt_cards`` reads of a player: its hand, and what it played."""

    def __init__(self, text: str) -> None:
        self.current_hand = [
            _Card("", {"B": "BJ", "R": "RJ"}[ch]) if ch in "BR" else _Card(ch, "S") for ch in text
        ]
        self.played_cards = text


def rl_follows(hand: tuple[int, ...], target: Move) -> set[str]:
    return set(get_gt_cards(_Player(hand_text(hand)), _Player(rl_text(target)))) - {"pass"}


def test_our_moves_fit_rlcards_types_and_caps() -> None:
    universe = lead_moves(pack(tuple([4] * 13 + [1, 1])))
    checked = 0
    for move in universe:
        if move.size > 20:
            continue
        if move.combo in RL_CAPS:
            assert move.length <= RL_CAPS[move.combo]
        types = CARD_TYPE[0].get(rl_text(move))
        assert types is not None, f"RLCard has no move {rl_text(move)} ({move})"
        assert [t for t, _ in types] == [rl_type(move)], (move, types)
        checked += 1
    assert checked > 20_000


def test_lead_moves_agree_with_rlcard_on_random_hands() -> None:
    rng = random.Random(2024)
    known = 0
    for i in range(2500):
        size = (20, 17, 17, 12, 8, 5, 3, 1)[i % 8]
        hand = random_hand(rng, size)
        ours = {rl_text(m) for m in lead_moves(pack(hand))}
        theirs = DoudizhuJudger.playable_cards_from_hand(hand_text(hand))
        assert not ours - theirs, f"only ours in {hand_text(hand)}: {sorted(ours - theirs)}"
        for text in theirs - ours:
            assert rlcard_only(text), f"only RLCard's in {hand_text(hand)}: {text}"
            known += 1
    assert known > 0, "the known difference never showed: the test would not see it"


def test_follow_moves_agree_with_rlcard_on_random_hands() -> None:
    rng = random.Random(7)
    universe = [m for m in lead_moves(pack(tuple([4] * 13 + [1, 1]))) if m.size <= 20]
    by_combo: dict[str, list[Move]] = {}
    for m in universe:
        by_combo.setdefault(m.combo, []).append(m)
    combos = sorted(by_combo)
    compared = 0
    for i in range(3000):
        hand = random_hand(rng, (20, 17, 12, 6)[i % 4])
        if i % 2:
            leads = lead_moves(pack(random_hand(rng, 17)))
            target = leads[rng.randrange(len(leads))]
        else:  # every type equally often, rare airplanes included
            target = rng.choice(by_combo[combos[i // 2 % len(combos)]])
        ours = {rl_text(m) for m in follow_moves(pack(hand), target)}
        theirs = rl_follows(hand, target)
        assert not ours - theirs, (hand_text(hand), rl_text(target), sorted(ours - theirs))
        for text in theirs - ours:
            assert rlcard_only(text), (hand_text(hand), rl_text(target), text)
        compared += len(ours)
    assert compared > 1000


def test_the_games_legal_actions_agree_with_rlcard_in_real_deals() -> None:
    """End to end: our concrete legal plays in random deals, seen as RLCard rank strings."""
    rng = random.Random(9)
    positions = 0
    for seed in range(40):
        state = GAME.new_state(OPTIONS, seed)
        while not GAME.is_over(state):
            (seat,) = GAME.to_act(state)
            legal = GAME.legal_actions(state, seat)
            if state.landlord is not None:
                hand = tuple((state.counts[seat] >> (4 * r)) & 15 for r in range(15))
                ours = {rl_text(read_play(a)[0]) for a in legal if isinstance(a, Play)}
                assert len(ours) == sum(isinstance(a, Play) for a in legal)
                if state.last is None:
                    assert Pass() not in legal
                    theirs = DoudizhuJudger.playable_cards_from_hand(hand_text(hand))
                else:
                    assert Pass() in legal
                    theirs = rl_follows(hand, read_play(state.last)[0])
                assert not ours - theirs
                assert all(rlcard_only(t) for t in theirs - ours)
                positions += 1
            state = GAME.apply(state, seat, legal[rng.randrange(len(legal))]).state
    assert positions > 500
