"""bench/fuzz.py: a short fuzz run against a real server finds nothing; and what it found once."""

from __future__ import annotations

import json

import pytest

from bench import fuzz
from client_cli.client import Client, ServerError
from protocol.server_messages import SERVER_MESSAGES
from server.app import running_server
from tests.server.helpers import FAST


def test_a_short_fuzz_run_finds_no_crash_internal_error_or_state_change(capsys) -> None:
    assert fuzz.main(["--seconds", "6", "--seed", "1"]) == 0
    result = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    # how many cases 6 s hold depends on the machine and on the tests beside it
    # (75 with four workers on two cores, over 100 alone): enough to be a run
    assert result["cases"] > 20
    assert result["refused"] > 0 and result["accepted"] > 0
    assert result["wire"] > 0  # raw bytes too, cut into frames by the server itself
    assert (result["crashes"], result["internal_errors"], result["state_changes"]) == (0, 0, 0)


def test_snapshots_notice_a_changed_table() -> None:
    before = fuzz.Snapshot(frozenset({"a", "b"}), 2, {"a": ({"version": 3}, [], None)})
    same = fuzz.Snapshot(frozenset({"a", "b"}), 2, {"a": ({"version": 3}, [], None)})
    moved = fuzz.Snapshot(frozenset({"a"}), 3, {"a": ({"version": 4}, [], None)})
    assert before.changed(same) == []
    assert before.changed(moved) == ["sessions 2 -> 3", "table a (version)"]
    busy = fuzz.Snapshot(frozenset({"a", "b"}), 2, {})
    assert before.changed(busy) == ["table a (no longer quiet)"]


def test_every_answer_to_a_request_counts_as_a_reply() -> None:
    """A reply type the fuzzer did not know (``hint``, then the account answers) left
    its request waiting until the step timed out, counted as a crash."""
    answers = {m.model_fields["type"].default for m in SERVER_MESSAGES if "ref" in m.model_fields}
    assert answers - fuzz.REPLIES <= {"replay", "update"}


def test_snapshots_notice_accounts_and_logins() -> None:
    before = fuzz.Snapshot(frozenset(), 2, {}, frozenset({"ann"}), ())
    registered = fuzz.Snapshot(frozenset(), 2, {}, frozenset({"ann", "bea"}), ("a_1",))
    assert before.changed(registered) == ["accounts ['bea']", "logged-in sessions"]
    assert {"register", "login", "logout", "change_password", "delete_account"} <= set(fuzz.TYPES)
    assert {"history", "profile", "get_game_record"} <= set(fuzz.TYPES)  # game records
    assert {"history", "profile", "game_record"} <= fuzz.REPLIES


def test_snapshots_count_a_new_table_or_a_quiet_one_gone_but_not_a_busy_one_ending() -> None:
    """Table b was busy (an AI game, a waiting table about to expire): it may end by itself
    while a request is refused (seen in 240 s runs); a quiet table may not, nor may one appear."""
    before = fuzz.Snapshot(frozenset({"a", "b"}), 2, {"a": ({"version": 3}, [], None)})
    busy_ended = fuzz.Snapshot(frozenset({"a"}), 2, {"a": ({"version": 3}, [], None)})
    quiet_gone = fuzz.Snapshot(frozenset({"b", "c"}), 2, {})
    assert before.changed(busy_ended) == []
    assert before.changed(quiet_gone) == ["lobby tables gone ['a'], new ['c']"]


async def test_a_non_ascii_invite_is_refused_not_an_internal_error() -> None:
    """Found by the fuzzer: compare_digest raised TypeError on non-ASCII text."""
    async with running_server(FAST) as server:
        owner = await Client.connect(server.url, "owner")
        guest = await Client.connect(server.url, "guest")
        try:
            joined = await owner.create_table("scopa", {"seat": 0, "private": True})
            for invite in ("ünïcode", "\u3164" * 3):
                with pytest.raises(ServerError) as err:
                    await guest.join(joined.table.id, invite=invite)
                assert err.value.code == "not_found"
        finally:
            await owner.close()
            await guest.close()


@pytest.mark.parametrize("game", ["doudizhu", "schafkopf"])
@pytest.mark.parametrize("action", [{"type": {}}, {"type": []}, {"type": "play", "card": {}}])
async def test_an_odd_action_at_a_union_table_is_bad_action(game: str, action: dict) -> None:
    """The issue's case (``"type": {}`` raised TypeError in the codec): now a typed refusal."""
    seats = {"doudizhu": 3, "schafkopf": 4}[game]
    async with (
        running_server(FAST) as server,
        await Client.connect(server.url, "odd") as client,
    ):
        ai = [{"seat": s} for s in range(1, seats)]
        joined = await client.create_table(game, {"seat": 0, "ai": ai})
        table = joined.table.id
        await client.wait_for(lambda m: client.tables[table].my_turn, 30)
        with pytest.raises(ServerError) as err:
            await client.act(table, action)
        assert (err.value.code, err.value.detail) == ("illegal_action", "bad_action")
        assert server.metrics.value("cardavia_errors_total", code="internal_error") == 0
