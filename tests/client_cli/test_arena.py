"""``cardavia arena``: duplicate deals, confidence intervals, decision times."""

from __future__ import annotations

import json
import random

import pytest

from client_cli.arena import lineups, run
from client_cli.arena_roles import doudizhu_lineups
from client_cli.main import main
from engine.game import Budget
from engine.registry import GAMES, get_game, get_policy

pytestmark = pytest.mark.heavy  # tens of seconds: run first (tests/conftest.py)


def test_two_player_lineups_swap_seats():
    game = get_game("scopa")
    assert lineups(game, game.options()) == [("a", "b"), ("b", "a")]


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_every_lineup_gives_side_a_each_position(game_id):
    game = get_game(game_id)
    ups = lineups(game, game.options())
    seats = game.num_seats(game.options())
    assert all(len(u) == seats for u in ups)
    for seat in range(seats):
        assert any(u[seat] == "a" for u in ups)
        assert any(u[seat] == "b" for u in ups)


def test_a_policy_against_itself_is_even_on_duplicate_deals():
    report = run("scopa", "greedy", "greedy", 20, 1, {})
    # identical policies with swapped seats: every duplicate pair splits one win each
    # unless the tie-breaking rng differs; the mean must be close to one half
    assert abs(report["win_rate"] - 0.5) <= report["ci95"] + 0.05
    assert report["games"] == 40


def test_greedy_beats_random_significantly():
    report = run("scopa", "greedy", "random", 30, 2, {})
    assert report["win_rate"] - report["ci95"] > 0.5


def test_arena_command_prints_the_report_as_json_last(capsys):
    assert main(["arena", "--game", "scopa", "--a", "normal", "--b", "easy", "--deals", "4"]) == 0
    report = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    for key in ("win_rate", "ci95", "points_per_deal", "decision_ms_p50", "decision_ms_p99"):
        assert key in report
    assert report["deals"] == 4 and report["games"] == 8


def test_arena_reports_unknown_policies(capsys):
    assert main(["arena", "--game", "scopa", "--a", "wizard", "--b", "easy", "--deals", "2"]) == 2
    assert "wizard" in capsys.readouterr().out


def test_an_iteration_budget_makes_search_runs_reproducible():
    budget = Budget(iterations=8)
    first = run("scopa", "hard", "normal", 2, 4, {"target": 3}, budget=budget)
    again = run("scopa", "hard", "normal", 2, 4, {"target": 3}, budget=budget)
    for r in (first, again):
        for key in [k for k in r if "ms" in k]:
            r.pop(key)
    assert first == again


def test_decided_games_and_positions_account_for_every_game():
    report = run("cicera", "normal", "easy", 6, 3, {})
    assert report["a_wins"] + report["b_wins"] + report["draws"] == report["games"] == 12
    decided = report["a_wins"] + report["b_wins"]
    assert report["decided_win_rate"] == round(report["a_wins"] / decided, 4)
    # two lineups (one per team); the deal mean is the mean over positions
    by_position = report["win_rate_by_position"]
    assert len(by_position) == 2
    assert report["win_rate"] == pytest.approx(sum(by_position) / 2, abs=1e-3)


def test_win_rate_by_position_and_by_role_cover_every_game():
    report = run("doudizhu", "greedy", "random", 4, 5, {})
    assert len(report["win_rate_by_position"]) == 3
    assert report["a_wins"] + report["b_wins"] + report["draws"] == 12
    roles = report["by_role"]
    assert set(roles) <= {"landlord", "farmer_after", "farmer_before"}
    assert sum(r["games"] for r in roles.values()) == 12
    wins = sum(r["win_rate"] * r["games"] for r in roles.values())
    assert wins == pytest.approx(report["a_wins"] + report["draws"] / 2, abs=1e-2)


def test_games_without_roles_report_none():
    assert run("scopa", "easy", "random", 2, 1, {"target": 3})["by_role"] == {}
    # a team holds two seats: no single role
    assert run("cicera", "easy", "random", 2, 1, {})["by_role"] == {}


def test_worker_processes_give_the_same_report():
    one = run("scopa", "normal", "easy", 6, 9, {"target": 5})
    two = run("scopa", "normal", "easy", 6, 9, {"target": 5}, jobs=2)
    for r in (one, two):
        for key in [k for k in r if "ms" in k]:
            r.pop(key)
    assert one == two


def test_arena_refuses_bad_jobs_and_bad_options(capsys):
    assert main(["arena", "--game", "scopa", "--a", "easy", "--b", "easy", "--jobs", "0"]) == 2
    assert "--jobs" in capsys.readouterr().out
    code = main(["arena", "--game", "scopa", "--a", "easy", "--b", "easy", "-o", "target=0"])
    assert code == 2
    assert "target" in capsys.readouterr().out


def test_fixed_roles_seat_side_a_as_landlord_and_as_both_farmers():
    game = get_game("doudizhu")
    ups = doudizhu_lineups(game.options())
    assert sorted(u.role for u in ups) == ["farmers"] * 3 + ["landlord"] * 3
    for up in ups:
        a_seats = [s for s, side in enumerate(up.seats) if side == "a"]
        assert len(a_seats) == (1 if up.role == "landlord" else 2)


def test_fixed_roles_make_the_scripted_seat_the_landlord():
    report = run("doudizhu", "greedy", "random", 3, 2, {}, fixed_roles=True)
    assert report["games"] == 18 and report["fixed_roles"] is True
    assert {r: v["games"] for r, v in report["by_role"].items()} == {"landlord": 9, "farmers": 9}

    game = get_game("doudizhu")
    options = game.options()
    policy = get_policy("doudizhu", "random")
    rng = random.Random(1)
    for up in doudizhu_lineups(options):
        expected = up.seats.index("a") if up.role == "landlord" else up.seats.index("b")
        state = game.new_state(options, 5)
        while state.landlord is None:
            seat = game.to_act(state)[0]
            view = game.view(state, seat)
            action = up.script(view)
            assert action is not None  # the whole auction is scripted
            state = game.apply(state, seat, action).state
        assert state.landlord == expected and state.bid == 3
        view = game.view(state, game.to_act(state)[0])
        assert up.script(view) is None  # card play is left to the policies
        assert policy.choose(view, view.legal, rng) in view.legal


def test_one_role_plays_only_the_lineups_that_give_side_a_that_role():
    whole: list[dict] = []
    full = run("doudizhu", "greedy", "random", 3, 2, {}, fixed_roles=True, per_deal=whole)
    for role, first in (("landlord", 0), ("farmers", 1)):
        alone: list[dict] = []
        report = run(
            "doudizhu", "greedy", "random", 3, 2, {}, fixed_roles=True, role=role, per_deal=alone
        )
        assert report["role"] == role and report["games"] == 9
        assert report["by_role"] == {role: full["by_role"][role]}
        # the very games of the full run (its lineups alternate landlord, farmers)
        assert [d["wins"] for d in alone] == [d["wins"][first::2] for d in whole]
        assert [d["points"] for d in alone] == [d["points"][first::2] for d in whole]
    assert full["role"] is None


def test_a_role_needs_fixed_roles_and_must_be_the_games_own(capsys):
    with pytest.raises(KeyError, match="fixed roles"):
        run("doudizhu", "greedy", "random", 1, 1, {}, role="landlord")
    with pytest.raises(KeyError, match="only: farmers, landlord"):
        run("doudizhu", "greedy", "random", 1, 1, {}, fixed_roles=True, role="peasant")
    args = ["arena", "--game", "doudizhu", "--a", "greedy", "--b", "random", "--deals", "1"]
    assert main([*args, "--role", "landlord"]) == 2
    assert "fixed roles" in capsys.readouterr().out
    assert main([*args, "--fixed-roles", "--role", "peasant"]) == 2
    assert "no role 'peasant'" in capsys.readouterr().out


def test_fixed_roles_are_refused_for_games_without_them(capsys):
    with pytest.raises(KeyError):
        run("scopa", "easy", "easy", 1, 1, {}, fixed_roles=True)
    assert main(["arena", "--game", "scopa", "--a", "easy", "--b", "easy", "--fixed-roles"]) == 2
    assert "fixed roles" in capsys.readouterr().out


def test_par_of_a_policy_against_itself_is_its_own_win_rate():
    # with bidding one Dou Dizhu seat against two is the landlord a third of the time:
    # equal players do not win one half, and par measures what they do win
    report = run("doudizhu", "normal", "normal", 12, 1, {}, par=True)
    assert report["par_win_rate"] == report["win_rate"]
    assert report["edge"] == 0.0 and report["edge_ci95"] == 0.0
    assert report["win_rate"] < 0.45


def test_par_shows_the_stronger_policy_ahead_of_the_yardstick():
    report = run("doudizhu", "normal", "random", 20, 4, {}, par=True)
    assert report["edge"] == pytest.approx(report["win_rate"] - report["par_win_rate"], abs=1e-3)
    assert report["edge"] - report["edge_ci95"] > 0
    without = run("doudizhu", "normal", "random", 20, 4, {})
    assert "par_win_rate" not in without and without["win_rate"] == report["win_rate"]


def test_par_with_fixed_roles_and_workers_gives_the_same_report():
    one = run("doudizhu", "normal", "greedy", 6, 5, {}, fixed_roles=True, par=True)
    two = run("doudizhu", "normal", "greedy", 6, 5, {}, fixed_roles=True, par=True, jobs=2)
    for r in (one, two):
        for key in [k for k in r if "ms" in k]:
            r.pop(key)
    assert one == two
    # fixed roles: b as landlord and as the farmers on the same deal wins exactly one half
    assert one["par_win_rate"] == 0.5


def test_arena_command_prints_par(capsys):
    argv = ["arena", "--game", "scopa", "--a", "normal", "--b", "easy", "--deals", "3", "--par"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "par (b in a's seats)" in out
    assert {"par_win_rate", "edge", "edge_ci95"} <= json.loads(out.strip().splitlines()[-1]).keys()


def test_points_per_deal_come_with_their_interval():
    # Schafkopf is zero-sum between one seat and three: a's margin over the mean b
    # is 4/3 of a's points in every deal, and so is its interval
    report = run("schafkopf", "normal", "easy", 8, 3, {"deals": 1})
    assert report["points_ci95"] > 0
    assert report["points_ci95"] == pytest.approx(0.75 * report["margin_ci95"], abs=2e-4)
    assert report["points_per_deal"] == pytest.approx(0.75 * report["margin_per_deal"], abs=2e-4)


_SEEN: list[tuple[str, int | None]] = []
"""What :class:`_BudgetLog` saw: each decision's phase and budget iterations."""


class _BudgetLog:
    """The ``normal`` policy, recording the budget each decision was given by phase."""

    def __init__(self, game_id: str) -> None:
        self._inner = get_policy(game_id, "normal")

    def choose(self, view, legal, rng, budget=None):  # type: ignore[no-untyped-def]
        _SEEN.append((view.phase, budget.iterations if budget is not None else None))
        return self._inner.choose(view, legal, rng, budget)


@pytest.mark.parametrize("game_id", ["doudizhu", "schafkopf"])
def test_a_bid_budget_goes_to_the_auction_and_the_play_budget_to_the_rest(game_id):
    _SEEN.clear()
    run(
        game_id, "a", "b", 2, 5, {}, make_policy=lambda g, _name: _BudgetLog(g),
        budget=Budget(iterations=40), bid_budget=Budget(iterations=7),
    )  # fmt: skip
    phases = {phase for phase, _ in _SEEN}
    assert phases == {"bidding", "play"}
    for phase, iterations in _SEEN:
        assert iterations == (7 if phase == "bidding" else 40)


def test_the_bid_budget_is_refused_where_there_is_no_auction(capsys):
    args = ["arena", "--a", "normal", "--b", "easy", "--deals", "1", "--bid-iterations", "5"]
    assert main([*args, "--game", "scopa"]) == 2
    assert "scopa: it has no auction" in capsys.readouterr().out
    assert main([*args, "--game", "doudizhu", "--fixed-roles"]) == 2
    assert "scripted with fixed roles" in capsys.readouterr().out
    assert main(["arena", "--game", "doudizhu", "--a", "normal", "--b", "easy",
                 "--bid-iterations", "0"]) == 2  # fmt: skip
    assert "--bid-iterations must be at least 1" in capsys.readouterr().out


def test_the_per_deal_file_names_the_bid_iterations(tmp_path, capsys):
    out = tmp_path / "d.json"
    args = ["arena", "--game", "doudizhu", "--a", "hard", "--b", "normal", "--deals", "1"]
    assert main([*args, "--iterations", "6", "--bid-iterations", "3", "--per-deal", str(out)]) == 0
    run_keys = json.loads(out.read_text())["run"]
    assert run_keys["iterations"] == 6 and run_keys["bid_iterations"] == 3


_AUCTIONS: list[tuple[str, int]] = []
"""What :class:`_AuctionLog` saw: each decision's phase and the calls its view showed."""


class _AuctionLog:
    """The ``normal`` policy, recording how many calls each view showed."""

    def __init__(self, game_id: str) -> None:
        self._inner = get_policy(game_id, "normal")

    def choose(self, view, legal, rng, budget=None):  # type: ignore[no-untyped-def]
        _AUCTIONS.append((view.phase, len(view.auction)))
        return self._inner.choose(view, legal, rng, budget)


def test_with_fixed_roles_the_policies_see_no_scripted_auction():
    # the script's calls say nothing of the hands: an auction-reading player must not
    # read them; with bidding, the card play shows the real auction
    _AUCTIONS.clear()
    run("doudizhu", "a", "b", 2, 5, {}, make_policy=lambda g, _n: _AuctionLog(g), fixed_roles=True)
    assert _AUCTIONS and {calls for _, calls in _AUCTIONS} == {0}
    assert {phase for phase, _ in _AUCTIONS} == {"play"}
    _AUCTIONS.clear()
    run("doudizhu", "a", "b", 2, 5, {}, make_policy=lambda g, _n: _AuctionLog(g))
    assert all(calls > 0 for phase, calls in _AUCTIONS if phase == "play")


_TOLD: list[tuple[str, tuple[str | None, ...]]] = []
"""What :class:`_PeerLog` was told: each side's name and the seats' policies."""


class _PeerLog:
    """The ``normal`` policy, recording who it is told sits where (engine.policy.seated)."""

    def __init__(self, game_id: str, name: str) -> None:
        self.name = name
        self._inner = get_policy(game_id, "normal")

    def knowing(self, peers):  # type: ignore[no-untyped-def]
        _TOLD.append((self.name, peers))
        return self

    def choose(self, view, legal, rng, budget=None):  # type: ignore[no-untyped-def]
        return self._inner.choose(view, legal, rng, budget)


def test_each_policy_is_told_the_lineup_as_a_table_shows_its_seats():
    _TOLD.clear()
    run("doudizhu", "x", "y", 1, 5, {}, make_policy=_PeerLog)
    lineup = {("x", "y", "y"), ("y", "x", "y"), ("y", "y", "x")}
    assert {peers for _, peers in _TOLD} == lineup
    assert {name for name, _ in _TOLD} == {"x", "y"} and len(_TOLD) == 6
    _TOLD.clear()
    run("doudizhu", "x", "y", 1, 5, {}, make_policy=_PeerLog, par=True)
    assert ("y", ("y", "y", "y")) in _TOLD  # b in a's seats: every seat shows b
    _TOLD.clear()
    report = run("doudizhu", "x", "y", 1, 5, {}, make_policy=_PeerLog, anonymous=True)
    assert _TOLD == [] and report["anonymous"] is True


def test_told_of_unmodelled_opponents_hard_plays_as_when_told_nothing():
    # greedy is not a kind hard models (engine.doudizhu.ai.search.MODELLED): it hedges either way
    budget = Budget(iterations=20)
    told = run("doudizhu", "hard", "greedy", 2, 3, {}, budget=budget)
    anonymous = run("doudizhu", "hard", "greedy", 2, 3, {}, budget=budget, anonymous=True)
    keys = ("win_rate", "points_per_deal", "a_wins", "by_role")
    assert {k: told[k] for k in keys} == {k: anonymous[k] for k in keys}
