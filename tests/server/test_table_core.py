"""The table's decisions without sockets or clocks (sans-I/O core)."""

from __future__ import annotations

import contextlib
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.codec import to_plain
from engine.registry import GAMES
from protocol import server_messages as sm
from protocol.errors import ErrorCode
from protocol.models import AiSeat, TableInfo, TableOptions
from server.duplicate.team_requests import table_options as team_table_options
from server.duplicate.team_store import new_match
from server.tables.core import FIXED_FIELDS, KEPT_FIELDS, Checkpoint, TableCore
from server.tables.options import RequestError
from tests.server.helpers import core_fields, make_core, messages

GAME_IDS = sorted(GAMES)


def seated(core: TableCore, now: float = 0.0) -> TableCore:
    for i in range(len(core.seats)):
        core.join(f"p{i}", f"P{i}", i, now)
    return core


def messages_for(outs: list[tuple[str, Any]], pid: str) -> list[Any]:
    return [m for p, m in outs if p == pid]


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_starts_when_full_and_each_seat_gets_its_own_view(game_id: str) -> None:
    core = make_core(game_id)
    n = len(core.seats)
    outs: list[Any] = []
    for i in range(n):
        assert core.status == "waiting"
        eff = core.join(f"p{i}", f"P{i}", None, 0.0)
        outs = messages(eff.outs)
    core.spectate("spec", "S", 0.0)
    assert core.status == "playing" and core.version == 1 and core.game_no == 1
    assert eff.started == (1, 11)
    for i in range(n):
        (update,) = [m for m in messages_for(outs, f"p{i}") if isinstance(m, sm.Update)]
        assert update.seat == i
        assert update.view == to_plain(core.game.view(core.state, i))
        starts = core.game.start_events(core.state)
        assert list(update.events) == [
            {"kind": e.kind, "data": to_plain(dict(e.data))}
            for e in starts
            if e.audience is None or i in e.audience
        ]


def test_act_checks_in_order_and_changes_nothing_when_refused() -> None:
    core = seated(make_core())
    seat = core.game.to_act(core.state)[0]
    other = 1 - seat
    legal = to_plain(core.game.legal_actions(core.state, seat)[0])
    state, version = core.state, core.version

    def refused(pid: str | None, s: int, v: int, action: Any) -> RequestError:
        with pytest.raises(RequestError) as info:
            core.act(pid, s, v, action, "human", 1.0)
        return info.value

    assert refused("stranger", seat, version, legal).code == "not_at_table"
    assert refused(f"p{other}", seat, version, legal).code == "forbidden"
    assert refused(f"p{other}", other, version, legal).code == "not_your_turn"
    assert refused(f"p{seat}", seat, version + 5, legal).code == "stale_version"
    err = refused(f"p{seat}", seat, version, {"type": "play", "card": "XX"})
    assert err.code == "illegal_action" and err.detail == "bad_action"
    # the AI may not play a human's seat that is neither away nor timed out
    assert refused(None, seat, version, legal).code == "forbidden"
    assert core.state is state and core.version == version and not core.log
    eff = core.act(f"p{seat}", seat, version, legal, "human", 1.0)
    assert core.version == version + 1 and eff.applied is not None
    assert eff.applied.seat == seat and eff.applied.action == legal


def test_grace_then_ai_covers_and_reconnect_takes_back() -> None:
    core = seated(make_core(disconnect_grace=5.0), now=0.0)
    seat = core.game.to_act(core.state)[0]
    core.disconnect(f"p{seat}", 10.0)
    assert core.ai_due(12.0) == []
    assert core.next_wakeup(12.0) == 15.0
    (turn,) = core.ai_due(15.0)
    assert turn.seat == seat and turn.by == "ai" and turn.version == core.version
    # the others are told that the AI now covers the absent seat
    (changed,) = [m for p, m in core.tick(15.0).outs if p == f"p{1 - seat}"]
    assert isinstance(changed, sm.TableChanged) and changed.table.seats[seat].ai_covering
    assert core.tick(15.5).outs == []
    core.reconnect(f"p{seat}", 16.0)
    assert core.ai_due(16.0) == []
    legal = to_plain(core.game.legal_actions(core.state, seat)[0])
    with pytest.raises(RequestError):
        core.act(None, seat, core.version, legal, "ai", 16.0)


def test_turn_timer() -> None:
    core = seated(make_core(options=TableOptions(turn_timer=30.0)), now=100.0)
    seat = core.game.to_act(core.state)[0]
    assert core.timer_left(110.0) == 20.0
    assert core.next_wakeup(110.0) == 130.0
    assert core.ai_due(129.9) == []
    (turn,) = core.ai_due(130.0)
    assert turn.by == "timer" and turn.seat == seat
    legal = to_plain(core.game.legal_actions(core.state, seat)[0])
    eff = core.act(None, seat, core.version, legal, "timer", 130.0)
    assert eff.applied is not None and eff.applied.by == "timer"
    assert core.seats[seat].kind == "human"


def test_ai_seats_are_due_immediately() -> None:
    opts = TableOptions(seat=None, ai=(AiSeat(seat=0), AiSeat(seat=1, level="random")))
    core = make_core(options=opts)
    core.tick(0.0)
    assert core.status == "playing"
    (turn,) = core.ai_due(0.0)
    assert turn.level == ("random" if turn.seat == 1 else core.setup.strongest)


def test_the_ai_is_told_what_the_lobby_shows_of_each_seat() -> None:
    """``peers``: each AI seat's level as :meth:`TableCore.info` lists it, None for a
    person (a human's seat stays None while the AI covers it)."""
    opts = TableOptions(seat=0, ai=(AiSeat(seat=1, level="random"),))
    core = make_core(options=opts)
    core.join("p0", "P0", 0, 0.0)
    assert core.peers() == (None, "random")
    assert core.peers() == tuple(s.level for s in core.info().seats)
    core.disconnect("p0", 1.0)
    core.tick(100.0)  # past the grace: the AI covers the absent human
    assert core.info(100.0).seats[0].ai_covering and core.peers()[0] is None


def test_quick_fill_after_wait() -> None:
    core = make_core(fill_at=10.0, fill_level="random")
    core.join("p0", "P0", None, 0.0)
    assert core.next_wakeup(1.0) == 10.0
    assert core.tick(5.0).started is None
    eff = core.tick(10.0)
    assert (
        eff.started is not None and core.seats[1].kind == "ai" and core.seats[1].level == "random"
    )


def test_a_wakeup_no_tick_has_seen_stays_due() -> None:
    """A timer that fires a little early (uvloop's clock counts milliseconds) ticks
    before the fill is due; the fill stays the next wakeup, due once its moment has
    passed, instead of being dropped as past (issue 53: the table then waited for the
    next person or an away player's grace)."""
    core = make_core("doudizhu", quick=True, fill_at=10.0)
    core.join("p0", "P0", None, 0.0)
    assert core.tick(9.9995).started is None  # early: nothing is due yet
    assert core.next_wakeup(10.0005) == 10.0  # past, not yet seen by a tick: due
    assert core.tick(10.0005).started is not None and core.status == "playing"
    # a grace expiry the same way; once a tick has seen it, it is not due again
    core.disconnect("p0", 20.0)
    core.tick(24.9995)  # the grace is 5 s (make_core)
    assert core.next_wakeup(25.0005) == 25.0
    core.tick(25.0005)
    assert core.info(25.0005).seats[0].ai_covering
    assert core.next_wakeup(25.001) is None


def test_a_fill_due_at_creation_waits_for_the_creators_join() -> None:
    """A table created to fill at once (the page's "AI takes the empty seats"): the
    moment it was created at counts as seen, so the actor's first wakeup is not a tick
    ahead of the creator's join; the tick queued after the join fills it."""
    core = make_core(fill_at=5.0, created=5.0)
    assert core.next_wakeup(5.001) is None
    core.join("p0", "P0", 0, 5.001)
    assert core.tick(5.002).started is not None
    assert core.seats[0].kind == "human" and core.seats[1].kind == "ai"


def test_a_waiting_quick_play_seat_is_given_up_when_its_connection_closes() -> None:
    core = make_core("doudizhu", quick=True, fill_at=10.0)
    core.join("p0", "P0", None, 0.0)
    core.join("p1", "P1", None, 1.0)
    eff = core.disconnect("p0", 2.0)
    assert not eff.closed and core.seats[0].kind == "empty" and core.owner == "p1"
    assert not core.is_member("p0") and core.next_wakeup(2.0) == 10.0
    (changed,) = messages_for(messages(eff.outs), "p1")  # the other one sees the seat free
    assert isinstance(changed, sm.TableChanged) and changed.table.seats[0].kind == "empty"
    assert core.disconnect("p1", 3.0).closed  # nobody left: the table closes
    # a quick-play table that plays keeps the seat for the grace, as any table
    started = make_core("scopa", quick=True, fill_at=10.0)
    started.join("p0", "P0", None, 0.0)
    started.tick(10.0)
    assert not started.disconnect("p0", 11.0).closed
    assert started.seats[0].kind == "human" and not started.seats[0].connected


def test_a_join_that_comes_after_its_player_left() -> None:
    """The connection closed while the join waited its turn: a waiting quick-play table
    does not seat the player (and closes if opened for them); another table seats them
    as away."""
    core = make_core("doudizhu", quick=True, fill_at=10.0)
    assert core.join("p0", "P0", 0, 0.0, present=False).closed and not core.members()
    core = make_core("doudizhu", quick=True, fill_at=10.0)
    core.join("p0", "P0", 0, 0.0)
    eff = core.join("p1", "P1", None, 0.5, present=False)
    assert not eff.closed and core.members() == ["p0"] and core.free_seats() == [1, 2]
    created = make_core("scopa")
    created.join("p0", "P0", 0, 0.0, present=False)
    assert created.seats[0].kind == "human" and created.seats[0].away_since == 0.0


def test_leave_and_close() -> None:
    core = seated(make_core())
    eff = core.leave("p0", 1.0)
    assert core.seats[0].kind == "ai" and core.seats[0].left and not eff.closed
    assert core.ai_reason(0, 1.0) == ("ai" if 0 in core.game.to_act(core.state) else None)
    eff = core.leave("p1", 2.0)
    assert eff.closed
    with pytest.raises(RequestError) as info:
        core.leave("p1", 3.0)
    assert info.value.code == "not_at_table"


def test_spectator_sees_the_spectator_view_only() -> None:
    core = seated(make_core())
    eff = core.spectate("s", "S", 0.0)
    (snap,) = [m for p, m in eff.outs if p == "s" and isinstance(m, sm.Snapshot)]
    assert snap.seat is None and snap.view == to_plain(core.game.view(core.state, None))
    with pytest.raises(RequestError) as info:
        core.spectate("p0", "P0", 0.0)
    assert info.value.code == "forbidden"


def test_finished_game_is_archived_and_rematch_needs_every_human() -> None:
    core = seated(make_core(replays_kept=1))
    now = 0.0
    while core.status == "playing":
        seat = core.game.to_act(core.state)[0]
        action = to_plain(core.game.legal_actions(core.state, seat)[0])
        eff = core.act(f"p{seat}", seat, core.version, action, "human", now)
    overs = [m for _, m in eff.outs if isinstance(m, sm.GameOver)]
    assert len(overs) == 2 and overs[0].result == to_plain(core.game.result(core.state))
    assert len(core.archive) == 1 and core.archive[0].seed == 11
    first = core.rematch("p0", now)
    assert first.started is None
    assert core.info().rematch_votes == (0,)
    for pid in ("p0", "p1"):  # each vote is told to everyone at the table
        (told,) = [m for m in messages_for(first.outs, pid) if isinstance(m, sm.TableChanged)]
        assert told.table.rematch_votes == (0,) and told.table.status == "finished"
    eff = core.rematch("p1", now)
    assert eff.started == (2, 12) and core.game_no == 2 and core.status == "playing"
    for pid in ("p0", "p1"):  # the deciding vote: one summary, of the new game
        (told,) = [m for m in messages_for(eff.outs, pid) if isinstance(m, sm.TableChanged)]
        assert told.table.rematch_votes == () and told.table.status == "playing"
        assert told.table.game_no == 2
    with pytest.raises(RequestError) as info:
        core.rematch("p0", now)
    assert info.value.code == "game_in_progress"


def test_a_rematch_does_not_wait_for_a_player_who_is_away() -> None:
    core = seated(make_core())
    now = 0.0
    while core.status == "playing":
        seat = core.game.to_act(core.state)[0]
        action = to_plain(core.game.legal_actions(core.state, seat)[0])
        core.act(f"p{seat}", seat, core.version, action, "human", now)
    core.disconnect("p1", now)
    eff = core.rematch("p0", now)
    assert eff.started is not None and core.status == "playing"
    # the absent player keeps the seat; the AI plays it once the grace is over
    assert core.seats[1].kind == "human" and core.seat_of("p1") == 1
    to_act = core.game.to_act(core.state)
    later = now + 10.0
    if 1 in to_act:
        assert core.ai_reason(1, later) == "ai"
    core.reconnect("p1", later)
    assert core.seats[1].connected and core.ai_reason(1, later) is None


def test_chat_rate_limit() -> None:
    core = make_core(chat_per_minute=3)
    core.join("p0", "P0", 0, 0.0)
    for _ in range(3):
        core.chat("p0", "hi", 0.0)
    with pytest.raises(RequestError) as info:
        core.chat("p0", "hi", 0.0)
    assert info.value.code == "rate_limited"
    core.chat("p0", "hi", 21.0)  # one line per 20 s refills


def test_the_lobby_summary_is_rebuilt_when_the_table_changes_or_ages() -> None:
    core = make_core()
    first = core.listed_info(0.0)
    assert core.listed_info(0.5) is first  # listed again within a second: as it was
    core.join("p0", "P0", 0, 0.6)  # a seating change shows at once
    joined = core.listed_info(0.7)
    assert joined is not first and joined.seats[0].player_id == "p0"
    core.join("p1", "P1", 1, 0.8)  # full: the game starts
    seat, version = core.game.to_act(core.state)[0], core.version
    action = to_plain(core.game.legal_actions(core.state, seat)[0])
    core.act(f"p{seat}", seat, version, action, "human", 0.9)
    assert core.listed_info(1.5).version == version  # a move is no seating change
    assert core.listed_info(2.0).version == version + 1  # a second on: built again
    assert core.listed_info(2.0) == core.info(2.0)


def test_the_summary_follows_every_seat_change_and_keeps_unchanged_seats() -> None:
    """Each seat's summary is built again only when something in it changed."""
    core = make_core()  # a 5 s grace before the AI covers a dropped player
    core.join("p0", "P0", 0, 0.0)

    def summary(now: float) -> Any:
        info = core.info(now)
        assert info == TableInfo.model_validate(info.model_dump())
        return info

    before = summary(0.0)
    core.join("p1", "P1", 1, 1.0)
    joined = summary(1.0)
    assert joined.seats[0] is before.seats[0]  # seat 0 did not change
    assert joined.seats[1].player_id == "p1"
    core.disconnect("p1", 2.0)
    away = summary(2.0)
    assert away.seats[0] is joined.seats[0]
    assert (away.seats[1].connected, away.seats[1].ai_covering) == (False, False)
    covered = summary(8.0)  # past the grace: the AI covers the seat
    assert (covered.seats[1].connected, covered.seats[1].ai_covering) == (False, True)
    core.reconnect("p1", 9.0)
    back = summary(9.0)
    assert (back.seats[1].connected, back.seats[1].ai_covering) == (True, False)
    assert back.seats[0] is joined.seats[0]


# -- undoing a command (TableCore.checkpoint / restore) ----------------------------------
def test_every_field_of_the_core_is_fixed_kept_or_restored_by_a_checkpoint() -> None:
    """A field added to the core must be declared: fixed (no command changes it), kept
    on purpose (``KEPT_FIELDS``), or restored by a checkpoint; else a command's failed
    write would leave it changed."""
    core = seated(make_core())
    core.spectate("spec", "S", 0.0)
    fields = set(vars(core))
    restored = set(Checkpoint.__slots__) & fields
    assert set(Checkpoint.__slots__) - fields == {"log_length"}  # the log's, not a field
    assert not FIXED_FIELDS & KEPT_FIELDS and not restored & (FIXED_FIELDS | KEPT_FIELDS)
    undeclared = fields - FIXED_FIELDS - KEPT_FIELDS - restored
    assert not undeclared, f"neither fixed, kept nor restored: {sorted(undeclared)}"
    assert fields >= FIXED_FIELDS | KEPT_FIELDS


_OPS = ("join", "spectate", "leave", "disconnect", "reconnect", "start", "act", "ai_act")
_OPS += ("tick", "rematch", "chat", "wait")


def _apply(core: TableCore, op: str, who: int, now: float) -> None:
    """One request of player ``p{who}`` (or of the table's own) to ``core``."""
    pid = f"p{who}"
    if op == "join":
        core.join(pid, f"P{who}", None, now)
    elif op == "spectate":
        core.spectate(pid, f"P{who}", now)
    elif op == "leave":
        core.leave(pid, now)
    elif op == "disconnect":
        core.disconnect(pid, now)
    elif op == "reconnect":
        core.reconnect(pid, now)
    elif op == "start":
        core.request_start(pid, now)
    elif op in ("act", "ai_act") and core.status == "playing":
        (seat,) = core.game.to_act(core.state)
        legal = core.game.legal_actions(core.state, seat)
        action = to_plain(legal[who % len(legal)])
        player = None if op == "ai_act" else core.seats[seat].player_id or pid
        core.act(player, seat, core.version, action, "human" if player else "ai", now)
    elif op == "tick":
        core.tick(now)
    elif op == "rematch":
        core.rematch(pid, now)
    elif op == "chat":
        core.chat(pid, "hi", now)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(_OPS), st.integers(0, 3)), max_size=40))
def test_a_restored_checkpoint_undoes_any_request(ops: list[tuple[str, int]]) -> None:
    """Whatever a request changed (or began to change before it was refused), restoring
    the checkpoint taken before it leaves the core as it was; the table then goes on
    with the request applied."""
    core = make_core(options=TableOptions(game={"target": 1}), waiting_grace=30.0)
    now = 0.0
    for op, who in ops:
        now += 7.0 if op == "wait" else 0.5  # "wait": past the grace, a turn's timer
        before = core_fields(core)
        checkpoint = core.checkpoint()
        with contextlib.suppress(RequestError):
            _apply(core, op, who, now)
        core.restore(checkpoint)
        assert core_fields(core) == before, f"{op} by p{who} left a change behind"
        with contextlib.suppress(RequestError):
            _apply(core, op, who, now)


def test_a_team_match_member_takes_back_the_seat_the_ai_plays_in_their_absence() -> None:
    """Issue 56 (docs/duplicate.md, Absent members): the AI took the empty member seat of
    a team match table; its member takes it back mid-game, with a snapshot. The layout's
    own AI seat, and any AI seat of another table, stays the AI's."""
    match = new_match("doudizhu", "easy", 1, True, "acc-ann")
    core = make_core("doudizhu", team_table_options(match, 1, 0, 0.0), fill_level="easy")
    core.join("p1", "Ann", 0, 0.0, account="acc-ann")
    core.fill_with_ai(0.0)  # Bob (seat 1) is absent: the AI of the match's level plays it
    assert core.status == "playing" and core.seats[1].kind == "ai"
    eff = core.join("p2", "Bob", 1, 1.0, account="acc-bob")
    assert (core.seats[1].kind, core.seats[1].player_id, core.seats[1].account) == (
        "human",
        "p2",
        "acc-bob",
    )
    assert any(pid == "p2" and isinstance(m, sm.Snapshot) for pid, m in messages(eff.outs))
    with pytest.raises(RequestError) as exc:  # the layout's AI seat
        core.join("p3", "Eve", 2, 1.0)
    assert exc.value.code == ErrorCode.TABLE_FULL
    plain = make_core("scopa", TableOptions(ai=(AiSeat(seat=1),)))
    plain.join("p1", "Ann", 0, 0.0)
    assert plain.status == "playing"
    with pytest.raises(RequestError) as exc:
        plain.join("p2", "Bob", 1, 0.0)
    assert exc.value.code == ErrorCode.TABLE_FULL
