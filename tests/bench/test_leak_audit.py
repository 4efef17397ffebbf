"""bench/leak_audit.py: a short audit finds no leak, and the checks do catch one."""

from __future__ import annotations

import json
import random
from dataclasses import replace
from typing import Any

import pytest

from bench import leak_audit
from engine.codec import to_plain
from engine.game import Event
from engine.registry import GAMES
from server.persist.store import LoggedAction


def test_a_short_audit_of_every_game_finds_no_leak(capsys) -> None:
    assert leak_audit.main(["--games", "4", "--short", "--seed", "3"]) == 0
    result = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert result["games"] == 4 and result["frames"] > 100 and result["resumed"] >= 1
    assert set(result["by_game"]) == {"scopa", "cicera", "doudizhu", "schafkopf"}
    assert (result["leaks"], result["view_mismatches"], result["hidden_cards"]) == (0, 0, 0)
    assert result["record_checks"] >= 8 and result["record_leaks"] == 0  # history, records
    # and a Duplicate Swiss round: each of its six players refused the other table
    # (watching it, its stored game), their frames checked against their own table
    assert result["tournament_rounds"] == 1 and result["record_checks"] >= 8 + 12


async def test_a_tournament_table_shown_to_a_player_of_the_round_is_caught(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from server.tournaments.seating import SeatKeeper

    async def allowed(self: Any, player: Any, table_id: str) -> None:
        return None

    monkeypatch.setattr(SeatKeeper, "check_watch", allowed)
    result = await leak_audit.audit(0, seed=2, tournaments=1)
    assert result["record_leaks"] == 6  # each player could watch the other table


async def test_a_stored_game_that_is_not_the_game_played_is_caught(monkeypatch) -> None:
    from server.tables import actor

    real = actor.game_record

    def elsewhere(core: Any, now: float | None = None) -> Any:  # under another table's id
        return replace(real(core, now), table_id=core.id + "x")

    monkeypatch.setattr(actor, "game_record", elsewhere)
    result = await leak_audit.audit(1, seed=2, short=True)  # one Scopa game
    assert result["record_leaks"] == 1
    # the duplicate set's board results then lack the replay of the game played
    assert result["duplicate_leaks"] == 1 and result["leaks"] == 2


async def test_a_server_that_shows_every_event_to_everyone_is_caught(monkeypatch) -> None:
    monkeypatch.setattr(Event, "visible_to", lambda self, seat: True)
    result = await leak_audit.audit(1, seed=2, short=True)  # one Scopa game
    assert result["hidden_cards"] > 0 and result["leaks"] == result["hidden_cards"]


def _scopa_truth(moves: int) -> leak_audit.Truth:
    game = GAMES["scopa"]
    options = game.options({})
    state = game.new_state(options, 11)
    log = []
    rng = random.Random(5)
    for _ in range(moves):
        seat = game.to_act(state)[0]
        action = rng.choice(game.legal_actions(state, seat))
        log.append(LoggedAction(seat, to_plain(action)))
        state = game.apply(state, seat, action).state
    return leak_audit.Truth.rebuild(game, options, 11, log, final_version=1 + moves)


def test_frames_are_checked_against_the_rebuilt_views() -> None:
    truth = _scopa_truth(4)
    view = truth.view(2, 0)
    good = {"type": "update", "table": "t", "game_no": 1, "version": 3, "seat": 0, "view": view}
    found = leak_audit.Findings()
    leak_audit.check_frames(truth, "t", 1, 0, [good], found)
    assert (found.frames, found.view_mismatches, found.hidden_cards) == (1, 0, 0)

    other_hand = leak_audit.cards_in(truth.view(2, 1), truth.codes)
    hidden = sorted(other_hand - truth.known(0, 2))
    assert hidden  # the other seat holds cards seat 0 has not seen
    chat = {"type": "chat", "table": "t", "text": "hi", "from": {"x": [hidden[0]]}}
    wrong = {**good, "view": {**view, "hand": hidden}}
    found = leak_audit.Findings()
    leak_audit.check_frames(truth, "t", 1, 0, [good, chat, wrong], found)
    assert (found.view_mismatches, found.hidden_cards) == (1, 2)


@pytest.mark.parametrize(
    ("value", "cards"),
    [({"a": ["7D", {"7S": 1}]}, {"7D", "7S"}), (["nope", "7", 7, None], set()), ("AH", {"AH"})],
)
def test_cards_are_found_anywhere_in_plain_data(value, cards) -> None:
    assert leak_audit.cards_in(value, leak_audit.card_codes(GAMES["scopa"])) == cards


def test_the_short_audit_covers_duplicate_sets(capsys) -> None:
    assert leak_audit.main(["--games", "1", "--short", "--seed", "5"]) == 0
    result = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert result["duplicate_checks"] > 10 and result["duplicate_leaks"] == 0


async def test_a_board_shown_before_it_is_played_is_caught(monkeypatch) -> None:
    from server.duplicate import store

    monkeypatch.setattr(store.BoardSet, "seeds_shown", lambda self, now: True)
    result = await leak_audit.audit(1, seed=2, short=True)  # one Scopa set
    assert result["duplicate_leaks"] > 0 and result["leaks"] >= result["duplicate_leaks"]


async def test_a_team_match_shows_a_member_nothing_of_the_other_table() -> None:
    result = await leak_audit.audit(0, seed=4, team_matches=1)
    assert result["team_checks"] >= 20 and result["team_leaks"] == 0 and result["leaks"] == 0


async def test_a_team_board_shown_before_it_is_played_is_caught(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from server.duplicate import team_requests

    monkeypatch.setattr(team_requests, "board_shown", lambda line, my_table: True)
    result = await leak_audit.audit(0, seed=4, team_matches=1)
    # each unplayed board's answer, and the frames carrying its replays' cards
    assert result["team_leaks"] >= 4 and result["leaks"] == result["team_leaks"]
