"""Protocol models: round trips, strictness, error codes and the JSON Schema."""

from __future__ import annotations

import contextlib
import typing
from typing import Any

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from protocol import (
    CLIENT_MESSAGES,
    PROTOCOL_VERSION,
    SERVER_MESSAGES,
    ErrorCode,
    FrameError,
    decode_client,
    decode_server,
    encode,
)
from protocol import client_messages as cm
from protocol import server_messages as sm
from protocol.models import AiSeat, SeatInfo, TableInfo, TableOptions
from protocol.schema import json_schema

INFO = TableInfo(
    id="t1",
    game="scopa",
    title="Scopa",
    status="playing",
    seats=(
        SeatInfo(seat=0, kind="human", player_id="p_1", name="Ann"),
        SeatInfo(seat=1, kind="ai"),
    ),
    spectators=0,
    private=False,
    quick=False,
    owner="p_1",
    game_no=1,
    version=3,
    turn_timer=None,
    ai_delay=0.8,
    options={"pattern": "napoletane", "target": 11},
)

CLIENT_SAMPLES: list[Any] = [
    cm.Hello(id=1, version=PROTOCOL_VERSION, name="Ann", token=None),
    cm.ListGames(id=2),
    cm.ListTables(id=3, game="scopa"),
    cm.CreateTable(
        id=4,
        game="scopa",
        options=TableOptions(
            ai=(AiSeat(seat=1, level="greedy"),),
            private=True,
            turn_timer=30.0,
            ai_delay=0.5,
            game={"target": 21},
        ),
    ),
    cm.JoinTable(id=5, table="t1", seat=1, invite="abc"),
    cm.Spectate(id=6, table="t1"),
    cm.Leave(id=7, table="t1"),
    cm.QuickPlay(id=8, game="scopa", level="random"),
    cm.QuickPlay(id=8, game="cicera", rated=True, with_bots=True),
    cm.LeaveQueue(id=8, game="cicera"),
    cm.Start(id=9, table="t1"),
    cm.Act(
        id=10,
        table="t1",
        seat=0,
        version=3,
        action={"type": "play", "card": "7D", "capture": ("3S", "4C")},
    ),
    cm.Chat(id=11, table="t1", text="ciao"),
    cm.Rematch(id=12, table="t1"),
    cm.GetReplay(id=13, table="t1", game_no=1),
    cm.Hint(id=15, table="t1"),
    cm.Ping(id=14),
    cm.Register(id=16, name="Ann", password="correct horse"),
    cm.Login(id=17, name="Ann", password="correct horse"),
    cm.Logout(id=18),
    cm.ChangePassword(id=19, password="correct horse", new_password="battery staple"),
    cm.DeleteAccount(id=20, password="battery staple"),
    cm.CreateBot(id=21, name="Robo"),
    cm.ListBots(id=22),
    cm.CreateApiToken(id=23, bot="a_1", label="laptop"),
    cm.RevokeApiToken(id=24, token_id="t_1"),
    cm.BotLogin(id=25, token="cdv_secret"),
    cm.Kick(id=26, table="t_1", player="p_2"),
    cm.Mute(id=27, player="p_2"),
    cm.Unmute(id=28, player="a_2"),
    cm.Block(id=29, player="p_2"),
    cm.Unblock(id=30, player="a_2"),
    cm.ListRelations(id=31),
    cm.Report(id=32, player="p_2", reason="insults in chat", table="t_1", game_no=0),
    cm.History(id=33, game="scopa", cursor="MTI6dDEuMQ", limit=5),
    cm.GetProfile(id=34, name="Ann"),
    cm.GetLeaderboard(id=35, game="doudizhu", page=2, bots=True),
    cm.GetGameRecord(id=35, game_id="t1.1"),
    cm.ListDuplicateSets(id=36, game="scopa"),
    cm.CreateDuplicateSet(id=37, game="doudizhu", level="hard", boards=4, minutes=90, seat=1),
    cm.PlayDuplicate(id=38, set_id="daily-scopa-20261207"),
    cm.GetDuplicateStandings(id=39, set_id="set-0a1b2c3d4e5f"),
    cm.GetDuplicateBoard(id=40, set_id="set-0a1b2c3d4e5f", board=2),
]

STORED_SEAT = sm.StoredSeat(seat=0, kind="human", name="Ann", score=11, won=True)

SERVER_SAMPLES: list[Any] = [
    sm.Welcome(ref=1, version=1, player_id="p_1", name="Ann", token="tok", tables=("t1",)),
    sm.Error(ref=2, code=ErrorCode.ILLEGAL_ACTION, message="no", detail="must_capture", table="t1"),
    sm.Ok(ref=3),
    sm.Pong(ref=4),
    sm.Games(
        ref=5,
        games=(sm.GameInfo(id="scopa", title="Scopa", seats=2, levels=("random",), options={}),),
    ),
    sm.Tables(ref=6, tables=(INFO,)),
    sm.Joined(ref=7, table=INFO, seat=0, invite=None),
    sm.Left(ref=8, table="t1"),
    sm.TableChanged(table=INFO),
    sm.Update(
        table="t1",
        game_no=1,
        version=4,
        seat=0,
        actor=1,
        by="ai",
        events=({"kind": "play", "data": {"card": "7D"}},),
        view={"hand": ["1C"], "legal": []},
        timer_s=3.5,
    ),
    sm.Snapshot(table="t1", game_no=1, version=4, seat=None, view={"hand": []}),
    sm.GameOver(
        table="t1", game_no=1, version=9, result={"scores": [11, 3], "winners": [0], "summary": {}}
    ),
    sm.ChatLine(table="t1", player_id="p_1", name="Ann", seat=0, text="ciao"),
    sm.Replay(
        ref=9,
        table="t1",
        game="scopa",
        game_no=1,
        options={},
        seats=INFO.seats,
        start_events=(),
        steps=(sm.ReplayStep(seat=0, by="human", action={"type": "play"}, events=()),),
        final={"table": []},
        result={},
    ),
    sm.HintReply(
        ref=10,
        table="t1",
        seat=0,
        version=4,
        index=1,
        action={"type": "play", "card": "7D", "capture": ["7C"]},
        level="hard",
    ),
    sm.TableClosed(table="t1", reason="everybody left"),
    sm.Shutdown(reason="bye"),
    sm.Account(ref=11, account_id="a_1", name="Ann", bot=False),
    sm.Bot(ref=12, account_id="a_2", name="Robo"),
    sm.Bots(
        ref=13,
        bots=(
            sm.BotInfo(
                account_id="a_2", name="Robo", tokens=(sm.TokenInfo(token_id="t_1", label="x"),)
            ),
        ),
    ),
    sm.ApiToken(ref=14, token_id="t_1", bot="a_2", label="x", token="cdv_secret"),
    sm.Relations(
        ref=15,
        muted=(sm.RelatedPlayer(player="a_2", name="Bo"),),
        blocked=(sm.RelatedPlayer(player="p_3", name="Cy"),),
        kept=True,
    ),
    sm.Reported(ref=16, report_id="r_1"),
    sm.Kicked(table="t_1", reason="the table's owner removed you"),
    sm.HistoryPage(
        ref=17,
        games=(
            sm.HistoryGame(
                game_id="t1.1",
                game="scopa",
                finished_at=1.5,
                private=False,
                seat=0,
                seats=(
                    STORED_SEAT,
                    sm.StoredSeat(seat=1, kind="ai", level="hard", score=3, won=False),
                ),
            ),
        ),
        cursor="MTI6dDEuMQ",
    ),
    sm.Profile(
        ref=18,
        name="Ann",
        member_since=1.5,
        games=(sm.ProfileGame(game="scopa", played=3, won=2),),
        ratings=(
            sm.ProfileRating(
                game="scopa",
                rating=1612,
                deviation=94,
                provisional=False,
                games=40,
                change=-12,
                history=(sm.RatingPoint(at=1.5, rating=1624, deviation=97),),
            ),
        ),
    ),
    sm.Leaderboard(
        ref=19,
        game="scopa",
        bots=False,
        page=1,
        pages=3,
        entries=(
            sm.LeaderboardEntry(
                rank=1, name="Ann", bot=False, rating=1612, deviation=94, games=40, last_played=1.5
            ),
        ),
    ),
]


SERVER_SAMPLES.append(
    sm.Queued(ref=8, game="cicera", since=1.5, wait=10.0, rating=1612, with_bots=True)
)
SERVER_SAMPLES.append(
    sm.GameRecord(
        ref=17,
        game_id="t1.1",
        finished_at=1.5,
        private=True,
        seed=42,
        seats=(STORED_SEAT,),
        replay=next(m for m in SERVER_SAMPLES if isinstance(m, sm.Replay)),
    )
)


SERVER_SAMPLES.append(
    sm.DuplicateSets(
        ref=36,
        sets=(
            sm.DuplicateSetInfo(
                set_id="daily-scopa-20261207",
                game="scopa",
                kind="daily",
                level="normal",
                seat=0,
                boards=8,
                opens_at=1.5,
                closes_at=86401.5,
                players=3,
                next_board=2,
            ),
        ),
    )
)
SERVER_SAMPLES.append(
    sm.DuplicateStandings(
        ref=39,
        set_id="set-0a1b2c3d4e5f",
        standings=(
            sm.DuplicateStanding(
                rank=1, name="Ann", boards=2, matchpoints=3, top=4, percent=75.0, imps=1.5
            ),
        ),
    )
)
SERVER_SAMPLES.append(
    sm.DuplicateBoard(
        ref=40,
        set_id="set-0a1b2c3d4e5f",
        board=2,
        results=(sm.DuplicateBoardResult(name="Ann", score=3, matchpoints=2, top=2, imps=2.0),),
        replays=(next(m for m in SERVER_SAMPLES if isinstance(m, sm.Replay)),),
    )
)


CLIENT_SAMPLES.extend(
    [
        cm.ListTournaments(id=40, finished=True),
        cm.CreateTournament(
            id=41,
            name="Friday",
            game="doudizhu",
            kind="duplicate-swiss",
            starts_at=1.5,
            rounds=7,
            turn_timer=30.0,
        ),
        cm.RegisterTournament(id=42, tournament="Tab12"),
        cm.WithdrawTournament(id=43, tournament="Tab12"),
        cm.GetStandings(id=44, tournament="Tab12"),
        cm.NextTournamentTable(id=45, tournament="Tab12"),
    ]
)
TOURNAMENT = sm.TournamentInfo(
    id="Tab12",
    name="Friday",
    game="scopa",
    kind="arena",
    status="running",
    starts_at=1.5,
    rounds=None,
    duration=600,
    turn_timer=None,
    level="normal",
    round=3,
    players=128,
    registered=True,
)
SERVER_SAMPLES.extend(
    [
        sm.Tournaments(ref=40, tournaments=(TOURNAMENT,)),
        sm.Standings(
            ref=44,
            tournament=TOURNAMENT,
            standings=(
                sm.StandingLine(
                    rank=1,
                    name="ann",
                    points=2.5,
                    buchholz=4.0,
                    head_to_head=0.0,
                    game_score=30,
                    games=3,
                    withdrawn=False,
                ),
            ),
        ),
        sm.TournamentTable(tournament="Tab12", round=3, table="Tab12-r3-t4", seat=1),
    ]
)

CLIENT_SAMPLES.extend(
    [
        cm.CreateTeamMatch(id=50, game="scopa", boards=2, level="easy", private=True),
        cm.ListTeamMatches(id=51, game="doudizhu"),
        cm.JoinTeamMatch(id=52, match_id="M0123456789abcdef", team="b", slot=1),
        cm.LeaveTeamMatch(id=53, match_id="M0123456789abcdef"),
        cm.StartTeamMatch(id=54, match_id="M0123456789abcdef"),
        cm.GetTeamMatch(id=55, match_id="M0123456789abcdef"),
        cm.PlayTeamMatch(id=56, match_id="M0123456789abcdef"),
        cm.GetTeamMatchBoard(id=57, match_id="M0123456789abcdef", board=2),
    ]
)
TEAM_LINE = sm.TeamBoardLine(
    board=1,
    tables=(
        sm.TeamTableResult(table=0, done=True, a_total=3, b_total=-3),
        sm.TeamTableResult(table=1, done=True, a_total=-1, b_total=1),
    ),
    net=4,
    imps=4,
)
TEAM_MATCH = sm.TeamMatchInfo(
    match_id="M0123456789abcdef",
    game="scopa",
    boards=2,
    level="easy",
    private=False,
    status="playing",
    creator="ann",
    team_size=2,
    tables=2,
    roster=(sm.TeamMember(team="a", slot=0, name="ann"),),
    results=(TEAM_LINE,),
    imps_a=4,
    my_team="a",
    my_slot=0,
    my_table=0,
    next_board=2,
)
SERVER_SAMPLES.extend(
    [
        sm.TeamMatches(ref=51, matches=(TEAM_MATCH,)),
        sm.TeamMatch(ref=55, match=TEAM_MATCH),
        sm.TeamMatchTable(match_id="M0123456789abcdef", board=2, table=0, seat=0),
        sm.TeamMatchBoard(ref=57, match_id="M0123456789abcdef", line=TEAM_LINE, replays=()),
    ]
)


def test_samples_cover_every_message_type() -> None:
    assert {type(m) for m in CLIENT_SAMPLES} == set(CLIENT_MESSAGES)
    assert {type(m) for m in SERVER_SAMPLES} == set(SERVER_MESSAGES)
    assert set(CLIENT_MESSAGES) == set(typing.get_args(typing.get_args(cm.ClientMessage)[0]))
    assert set(SERVER_MESSAGES) == set(typing.get_args(typing.get_args(sm.ServerMessage)[0]))


@pytest.mark.parametrize("message", CLIENT_SAMPLES, ids=lambda m: m.type)
def test_client_round_trip(message: Any) -> None:
    assert decode_client(encode(message)) == message


@pytest.mark.parametrize("message", SERVER_SAMPLES, ids=lambda m: m.type)
def test_server_round_trip(message: Any) -> None:
    decoded = decode_server(encode(message))
    assert type(decoded) is type(message)
    assert encode(decoded) == encode(message)


def test_models_are_frozen_and_closed() -> None:
    msg = cm.Ping(id=1)
    with pytest.raises(ValidationError):
        msg.id = 2  # type: ignore[misc]
    with pytest.raises(ValidationError):
        cm.Ping(id=1, surprise=True)  # type: ignore[call-arg]


@pytest.mark.parametrize(
    ("data", "code"),
    [
        ({"type": "ping", "id": "1"}, ErrorCode.BAD_MESSAGE),  # strict: no str -> int
        ({"type": "ping", "id": -1}, ErrorCode.BAD_MESSAGE),
        ({"type": "ping", "id": 1.0}, ErrorCode.BAD_MESSAGE),
        ({"type": "join_table", "table": "t", "seat": True}, ErrorCode.BAD_MESSAGE),
        (
            {"type": "create_table", "game": "scopa", "options": {"turn_timer": float("nan")}},
            ErrorCode.BAD_MESSAGE,
        ),
        (
            {"type": "create_table", "game": "scopa", "options": {"turn_timer": 0.1}},
            ErrorCode.BAD_MESSAGE,
        ),
        ({"type": "hello", "version": 1}, ErrorCode.BAD_MESSAGE),
        ({"type": "chat", "table": "t", "text": ""}, ErrorCode.BAD_MESSAGE),
        ({"type": "welcome", "version": 1}, ErrorCode.UNKNOWN_TYPE),  # a server message
        ({"type": 5}, ErrorCode.UNKNOWN_TYPE),
        ({"id": 3}, ErrorCode.BAD_MESSAGE),
        ({"type": "register", "name": "Ann"}, ErrorCode.BAD_MESSAGE),
        ({"type": "register", "name": "Ann", "password": 12345678}, ErrorCode.BAD_MESSAGE),
        ({"type": "login", "name": "", "password": "x" * 8}, ErrorCode.BAD_MESSAGE),
        ({"type": "login", "name": "Ann", "password": "x" * 2000}, ErrorCode.BAD_MESSAGE),
        ({"type": "login", "name": "A" * 300, "password": "x" * 8}, ErrorCode.BAD_MESSAGE),
        ({"type": "logout", "extra": 1}, ErrorCode.BAD_MESSAGE),
        ({"type": "change_password", "password": "x" * 8}, ErrorCode.BAD_MESSAGE),
        ({"type": "delete_account", "password": None}, ErrorCode.BAD_MESSAGE),
        ({"type": "kick", "table": "t"}, ErrorCode.BAD_MESSAGE),
        ({"type": "kick", "table": "t", "player": 7}, ErrorCode.BAD_MESSAGE),
        ({"type": "mute", "player": ""}, ErrorCode.BAD_MESSAGE),
        ({"type": "mute", "player": "p" * 33}, ErrorCode.BAD_MESSAGE),
        ({"type": "block", "player": ["p_1"]}, ErrorCode.BAD_MESSAGE),
        ({"type": "list_relations", "all": True}, ErrorCode.BAD_MESSAGE),
        ({"type": "report", "player": "p_1", "reason": ""}, ErrorCode.BAD_MESSAGE),
        ({"type": "report", "player": "p_1", "reason": "x" * 501}, ErrorCode.BAD_MESSAGE),
        ({"type": "report", "player": "p_1", "reason": "x", "game_no": -1}, ErrorCode.BAD_MESSAGE),
        ({"type": "quick_play", "game": "scopa", "rated": "yes"}, ErrorCode.BAD_MESSAGE),
        ({"type": "quick_play", "game": "scopa", "with_bots": 2}, ErrorCode.BAD_MESSAGE),
        ({"type": "leave_queue", "game": ""}, ErrorCode.BAD_MESSAGE),
        ({"type": "leave_queue", "game": "g" * 33}, ErrorCode.BAD_MESSAGE),
    ],
)
def test_bad_messages_get_typed_codes(data: dict[str, Any], code: ErrorCode) -> None:
    with pytest.raises(FrameError) as info:
        decode_client(msgpack.packb(data))
    assert info.value.code == code
    if isinstance(data.get("id"), int) and data["id"] >= 0 and not isinstance(data["id"], bool):
        assert info.value.ref == data["id"]


def test_passwords_never_show_in_reprs_or_errors() -> None:
    secret = "hunter2-secret"
    for message in (
        cm.Register(name="Ann", password=secret),
        cm.Login(name="Ann", password=secret),
        cm.ChangePassword(password=secret, new_password=secret + "!"),
        cm.DeleteAccount(password=secret),
        cm.BotLogin(token=secret),
        sm.ApiToken(token_id="t", bot="a", label="x", token=secret),
    ):
        assert secret not in repr(message) and secret not in str(message)
    with pytest.raises(FrameError) as info:  # too long: the error names the field only
        decode_client(msgpack.packb({"type": "login", "name": "Ann", "password": secret * 100}))
    assert secret not in info.value.message


def test_frames_that_are_not_maps() -> None:
    for frame in (b"", b"\xc1", msgpack.packb([1]), msgpack.packb({1: 2}), "text", b"\x92\x01"):
        with pytest.raises(FrameError) as info:
            decode_client(frame)
        assert info.value.code == ErrorCode.BAD_MESSAGE


def test_server_frames_that_are_not_maps_or_hold_what_msgpack_data_cannot() -> None:
    """A client reads the server's frames with ormsgpack: the same refusals as msgpack
    for what is not a map of text keys, and extension types refused too."""
    ext = msgpack.packb({"type": "ok", "ref": msgpack.ExtType(1, b"x")})
    deep = b"\x81\xa1a" + b"\x91" * 5000 + b"\x01"
    for frame in (b"", b"\xc1", msgpack.packb([1]), msgpack.packb({1: 2}), "text", ext, deep):
        with pytest.raises(FrameError) as info:
            decode_server(frame)
        assert info.value.code == ErrorCode.BAD_MESSAGE
    ok = msgpack.packb({"type": "ok", "ref": 3})
    with pytest.raises(FrameError):
        decode_client(msgpack.packb({"type": "ping", "id": 1}) + b"\x00")  # the edge: strict
    assert decode_server(ok + b"\x00") == sm.Ok(ref=3)  # a server's frame: bytes after the map


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=64))
def test_any_bytes_decode_or_raise_frame_error(frame: bytes) -> None:
    with contextlib.suppress(FrameError):
        decode_client(frame)
    with contextlib.suppress(FrameError):
        decode_server(frame)


@settings(max_examples=200, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from(["type", "id", "table", "seat", "version", "action", "text", "name"]),
        st.one_of(
            st.none(),
            st.booleans(),
            st.integers(min_value=-(2**63), max_value=2**63 - 1),
            st.text(max_size=5),
            st.sampled_from(["act", "chat", "hello", "join_table"]),
            st.lists(st.integers(min_value=0, max_value=2**32), max_size=3),
        ),
    )
)
def test_any_map_decodes_or_raises_frame_error(data: dict[str, Any]) -> None:
    try:
        decode_client(msgpack.packb(data))
    except FrameError as exc:
        assert exc.code in (ErrorCode.BAD_MESSAGE, ErrorCode.UNKNOWN_TYPE)


def test_json_schema_lists_every_message() -> None:
    schema = json_schema()
    assert schema["protocol_version"] == PROTOCOL_VERSION
    client_tags = {
        d["properties"]["type"]["const"]
        for d in schema["client"]["$defs"].values()
        if "type" in d.get("properties", {})
    }
    server_tags = {
        d["properties"]["type"]["const"]
        for d in schema["server"]["$defs"].values()
        if "type" in d.get("properties", {})
    }
    assert client_tags == {m.model_fields["type"].default for m in CLIENT_MESSAGES}
    assert server_tags == {m.model_fields["type"].default for m in SERVER_MESSAGES}
    codes = schema["server"]["$defs"]["ErrorCode"]["enum"]
    assert set(codes) == {c.value for c in ErrorCode}
