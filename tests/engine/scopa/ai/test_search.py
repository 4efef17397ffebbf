"""The fast Scopa simulator of ``hard`` agrees with the game, and the search plays well."""

from __future__ import annotations

import random

from engine.game import Budget
from engine.scopa.ai.search import ScopaSearch, margin_values, match_values, match_win
from engine.scopa.ai.sim import (
    INDEX,
    Deal,
    acc_of,
    capture_table,
    groups,
    moves,
    rollout,
    rollout_choice,
    solve,
)
from engine.scopa.ai.worlds import deal_from_view
from engine.scopa.state import ScopaState
from tests.engine.scopa.helpers import GAME, cards, position


def ints(text: str) -> list[int]:
    return [INDEX[c] for c in cards(text)]


def as_deal(state: ScopaState) -> Deal:
    assert state.turn is not None
    return Deal(
        [ints_of(state.hands[0]), ints_of(state.hands[1])],
        ints_of(state.table),
        ints_of(state.stock),
        [acc_of(state.piles[0]), acc_of(state.piles[1])],
        list(state.scope),
        state.last_capturer,
        state.turn,
        state.dealer,
    )


def ints_of(cs: tuple) -> list[int]:
    return [INDEX[c] for c in cs]


def test_captures_follow_the_rules_examples():
    # a 7 on 7, 3, 4 must take the 7; on 3, 4, 5, 2 it may take 3+4 or 5+2 (A turn)
    assert groups(7, ints("7S 3H 4D")) == [tuple(ints("7S"))]
    found = {frozenset(g) for g in groups(7, ints("3S 4H 5D 2C"))}
    assert found == {frozenset(ints("3S 4H")), frozenset(ints("5D 2C"))}
    # two cards of the same value: either one, never both or a sum
    assert sorted(groups(5, ints("5S 5H 2D 3C"))) == sorted((i,) for i in ints("5S 5H"))
    assert groups(10, ints("AS 2S")) == []
    # the table positions are memoised per value pattern, not per card
    assert capture_table((3, 4))[7] == ((0, 1),)


def test_the_simulator_plays_deals_exactly_like_the_game():
    rng = random.Random(11)
    for seed in range(25):
        state = GAME.new_state(GAME.options(), seed)
        deal = as_deal(state)
        while state.deal_no == 0 and state.winner is None:
            seat = state.turn
            assert seat == deal.turn
            legal = GAME.legal_actions(state, seat)
            mine = sorted((c, tuple(sorted(g))) for c, g in moves(deal))
            theirs = sorted(
                (INDEX[p.card], tuple(sorted(INDEX[c] for c in p.capture))) for p in legal
            )
            assert mine == theirs
            play = legal[rng.randrange(len(legal))]
            state = GAME.apply(state, seat, play).state
            deal.play(INDEX[play.card], tuple(INDEX[c] for c in play.capture))
        assert deal.over()
        assert deal.points() == state.history[0].points


def test_a_sampled_world_keeps_everything_the_view_shows():
    state = GAME.new_state(GAME.options(), 4)
    view = GAME.view(state, state.turn)
    deal = deal_from_view(view, random.Random(1))
    me = view.seat
    assert deal.hands[me] == ints_of(view.hand)
    assert len(deal.hands[1 - me]) == view.hand_counts[1 - me]
    assert deal.table == ints_of(view.table)
    assert len(deal.stock) == view.stock_count
    assert sorted([*deal.hands[0], *deal.hands[1], *deal.table, *deal.stock]) == sorted(
        ints_of((*state.hands[0], *state.hands[1], *state.table, *state.stock))
    )


def _reference_minimax(state: ScopaState, seat: int) -> float:
    """Minimax over the real game to the end of the deal: the solver's oracle."""
    if state.deal_no != 0 or state.winner is not None:
        points = state.history[0].points
        return float(points[seat] - points[1 - seat])
    actor = state.turn
    assert actor is not None
    values = [
        _reference_minimax(GAME.apply(state, actor, p).state, seat)
        for p in GAME.legal_actions(state, actor)
    ]
    return max(values) if actor == seat else min(values)


def _last_rounds(n: int) -> list[ScopaState]:
    """Positions at the start of a deal's last round (stock empty), from greedy play."""
    from engine.scopa.ai.greedy import GreedyPolicy

    out = []
    for seed in range(n):
        state = GAME.new_state(GAME.options({"target": 100}), seed)
        rng = random.Random(seed)
        while state.stock or len(state.hands[0]) + len(state.hands[1]) < 6:
            seat = state.turn
            legal = GAME.legal_actions(state, seat)
            view = GAME.view(state, seat)
            state = GAME.apply(state, seat, GreedyPolicy().choose(view, legal, rng)).state
        out.append(state)
    return out


def test_the_endgame_solver_matches_minimax_over_the_game():
    for state in _last_rounds(6):
        seat = state.turn
        assert seat is not None
        deal = as_deal(state)
        exact = solve(deal, seat, margin_values(seat), float("-inf"), float("inf"))
        assert exact == _reference_minimax(state, seat)


def test_with_the_stock_empty_hard_plays_an_optimal_move():
    for state in _last_rounds(6):
        seat = state.turn
        assert seat is not None
        view = GAME.view(state, seat)
        best = _reference_minimax(state, seat)
        choice = ScopaSearch(match_aware=False).choose(
            view, view.legal, random.Random(0), Budget(iterations=10)
        )
        assert _reference_minimax(GAME.apply(state, seat, choice).state, seat) == best


def test_hard_takes_a_sweep_worth_having():
    # 4S sweeps 2D+2H (a scopa) mid-deal; laying anything leaves the table to the opponent
    state = position("4S KC", "AS 6H", "2D 2H", dealer=1, turn=0)
    view = GAME.view(state, 0)
    choice = ScopaSearch().choose(view, view.legal, random.Random(3), Budget(iterations=200))
    assert str(choice.card) == "4S" and choice.capture == frozenset(cards("2D 2H"))


def test_an_iteration_budget_is_deterministic_and_counted():
    state = GAME.new_state(GAME.options(), 8)
    view = GAME.view(state, state.turn)
    search = ScopaSearch()
    a = search.choose(view, view.legal, random.Random(4), Budget(iterations=60))
    assert search.last_iterations == 60
    b = ScopaSearch().choose(view, view.legal, random.Random(4), Budget(iterations=60))
    assert a == b


def test_the_fused_rollout_plays_the_rollout_policy_move_by_move():
    for seed in range(20):
        state = GAME.new_state(GAME.options(), seed)
        fast, slow = as_deal(state), as_deal(state)
        value = rollout(fast, margin_values(0))
        while not slow.over():
            card, group = rollout_choice(slow)
            slow.play(card, group)
        assert value == slow.points()[0] - slow.points()[1]
        assert fast.points() == slow.points()


def test_the_match_win_chance_follows_the_match_rule():
    # checked only after a deal: at least the target and strictly ahead wins, a tie plays on
    assert match_win(11, 10, 11) == 1.0
    assert match_win(12, 13, 11) == 0.0
    assert match_win(11, 11, 11) == 0.5
    assert abs(match_win(0, 0, 11) - 0.5) < 1e-9
    assert match_win(10, 3, 11) > match_win(9, 3, 11) > match_win(9, 4, 11) > 0.5
    for mine, theirs in [(3, 7), (10, 9), (0, 5)]:
        assert abs(match_win(mine, theirs, 11) + match_win(theirs, mine, 11) - 1.0) < 1e-9


def test_near_the_target_the_deal_value_is_the_match():
    # at 10-10 to 11, winning the deal by one point wins the match: worth far more than
    # a bigger margin at 0-0 would be
    late = match_values(0, (10, 10), 11)
    early = match_values(0, (0, 0), 11)
    assert late[3][2] - late[2][3] > early[3][2] - early[2][3]
    # a deal that is lost either way is still better lost by less
    assert late[0][5] > late[0][6]
