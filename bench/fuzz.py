"""Hypothesis-driven frames against a real server: nothing may crash, fail or change when refused.

    python -m bench.fuzz --seconds 30 [--seed 1]

A server runs in-process (``server.app.running_server``, 127.0.0.1, in a
thread of its own); an owner client sets up tables in every situation (a
public and a private waiting table, private and public tables in play where
the owner's turn is due, a finished game).  Then hypothesis draws one step at
a time: a frame of every client message type with valid and invalid fields,
random bytes, text frames, msgpack junk, huge and deeply nested payloads,
sent before hello, at tables not joined or left or finished, and actions for
random games, seats and versions.  Each step waits for its reply.  Some steps
write raw bytes after a hello instead: whole, fragmented, unmasked, truncated
and oversized WebSocket frames and garbage, cut into random pieces (the
server cuts frames itself); the server may close that connection (1002,
1007, 1009), and must go on answering the others.

Counted (the last line of stdout is one JSON object; progress on stderr):

* ``crashes`` — a connection closed that should not have been (only an
  oversized frame may close one, with 1009), a request left without a reply,
  a table actor or the sweeper task dead, an exception in the server's log;
* ``internal_errors`` — ``internal_error`` replies;
* ``state_changes`` — a refused request that changed something: a table
  created, the sessions, or any quiescent table (closed, or its version,
  status, seats, spectators, rematch votes or public view), compared just
  before and after; a busy table (an all-AI game, a waiting table whose
  owner left) may end by itself meanwhile.

``errors_logged`` (error lines without an exception) is reported, not judged.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import itertools
import json
import socket
import sys
import time
import warnings
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, TypeVar

import msgpack  # type: ignore[import-untyped]
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st
from hypothesis.errors import HypothesisDeprecationWarning
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect
from websockets.utils import apply_mask

from bench.fuzz_server import (
    CONFIG,
    MAX_FRAME,
    Facts,
    Known,
    ServerThread,
    Snapshot,
    dead_tasks,
    snapshot,
    table_facts,
)
from engine.codec import to_plain
from engine.registry import GAMES, policy_names
from protocol.base import PROTOCOL_VERSION
from protocol.client_messages import CLIENT_MESSAGES

T = TypeVar("T")

REPLY_TIMEOUT = 10.0
REPLIES = frozenset(
    {"welcome", "error", "ok", "pong", "games", "tables", "joined", "left", "hint"}
    | {"account", "bot", "bots", "api_token"}  # the account requests' answers
    | {"relations", "reported"}  # the moderation requests' answers
    | {"history", "profile", "game_record"}  # the stored games' answers
    | {"leaderboard"}  # the ratings' answers
    | {"queued"}  # a rated quick play's answer
    | {"duplicate_sets", "duplicate_standings", "duplicate_board"}  # duplicate play's answers
    | {"tournaments", "standings", "tournament_table"}  # the tournaments' answers
    | {"team_matches", "team_match", "team_match_board"}  # the team matches' answers
)
"""Message types that answer a request (``replay`` too, checked separately)."""

TYPES = tuple(m.model_fields["type"].default for m in CLIENT_MESSAGES)
SESSION_ENDED = 1000
"""The close code after ``logout`` and ``delete_account`` (server.players.account_requests)."""


# -- junk ----------------------------------------------------------------------
_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**64 - 1)
    | st.floats()
    | st.text(max_size=8)
    | st.binary(max_size=8)
    | st.sampled_from(["play", "bid", "pass", "announce", "7D", "AH", "OG", "BJ", "act", "hello"])
)
JUNK = st.recursive(
    _SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.text(max_size=6) | st.sampled_from(TYPES), inner, max_size=4)
    ),
    max_leaves=12,
)
"""Anything msgpack can carry, small."""


_ACTION_TYPES = st.sampled_from(["play", "bid", "pass", "announce"])
_ACTION_FIELDS = ["card", "capture", "value", "cards", "combo", "contract", "suit"]
ACTION_LIKE = (
    st.fixed_dictionaries({"type": JUNK}, optional={k: JUNK for k in _ACTION_FIELDS})
    | st.fixed_dictionaries({"type": _ACTION_TYPES}, optional={k: JUNK for k in _ACTION_FIELDS})
    | JUNK
)
"""Junk shaped like an action: a right or wrong ``type`` tag and right or wrong fields."""


@st.composite
def _wire_frame(draw: st.DrawFn) -> bytes:
    """A WebSocket frame as a client may or may not write it (RFC 6455 5.2: any
    opcode, reserved bits, unmasked, cut short), or bytes that are no frame."""
    kind = draw(st.integers(0, 9))
    if kind == 0:
        return draw(st.binary(min_size=1, max_size=40))  # garbage
    if kind == 1:  # a header announcing far more than the limit
        return bytes((0x82, 0xFF)) + draw(st.integers(MAX_FRAME, 2**63 - 1)).to_bytes(8, "big")
    payload = draw(
        st.one_of(
            st.builds(msgpack.packb, JUNK),
            st.builds(lambda n: msgpack.packb({"type": "ping", "id": n}), st.integers(0, 9)),
            st.binary(max_size=300),
        )
    )
    opcode = draw(st.sampled_from([0x0, 0x1, 0x2, 0x2, 0x2, 0x8, 0x9, 0xA, 0x3, 0xB]))
    fin = draw(st.booleans()) if kind < 6 else True
    rsv = draw(st.integers(0, 7)) if kind == 4 else 0
    head = bytearray(((0x80 if fin else 0) | rsv << 4 | opcode,))
    masked = kind != 2  # a client must mask
    size = len(payload)
    if size < 126:
        head.append((0x80 if masked else 0) | size)
    else:
        head.append((0x80 if masked else 0) | 126)
        head += size.to_bytes(2, "big")
    if masked:
        key = draw(st.binary(min_size=4, max_size=4))
        head += key
        payload = apply_mask(payload, key)
    wire = bytes(head) + payload
    return wire[: draw(st.integers(1, len(wire)))] if kind == 3 else wire  # 3: cut short


WIRE = _wire_frame()

SESSIONS = 3
SEATS = {"scopa": 2, "cicera": 4, "doudizhu": 3, "schafkopf": 4}


def _nested(depth: int, leaf: Any) -> Any:
    value = leaf
    for i in range(depth):
        value = [value] if i % 2 else {"type": value}
    return value


# -- the fuzzer's connections --------------------------------------------------------
class Closed(Exception):
    """The connection closed while waiting for a reply."""

    def __init__(self, code: int | None) -> None:
        super().__init__(f"closed with {code}")
        self.code = code


@dataclass
class Conn:
    """One fuzzer connection; a session one keeps its token to resume after a close."""

    ws: ClientConnection
    token: str | None = None
    internal_errors: int = 0

    def send(self, frame: bytes | str) -> None:
        try:
            self.ws.send(frame)
        except ConnectionClosed as exc:
            raise Closed(exc.rcvd.code if exc.rcvd else None) from None

    def wait_reply(self, ref: int, timeout: float = REPLY_TIMEOUT) -> dict[str, Any]:
        """Read until the reply carrying ``ref`` (pushes in between are scanned, then dropped)."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"no reply to request {ref}")
            try:
                raw = self.ws.recv(timeout=left)
            except ConnectionClosed as exc:
                raise Closed(exc.rcvd.code if exc.rcvd else None) from None
            msg = msgpack.unpackb(raw) if isinstance(raw, bytes) else {}
            if msg.get("type") == "error" and msg.get("code") == "internal_error":
                self.internal_errors += 1
            kind = msg.get("type")
            # with update_ref, an act's answer may be the mover's update carrying its ref
            answer = kind in REPLIES or kind == "replay" or kind == "update"
            if answer and msg.get("ref") == ref:
                return msg

    def request(self, msg: dict[str, Any], ref: int) -> dict[str, Any]:
        self.send(msgpack.packb({**msg, "id": ref}))
        return self.wait_reply(ref)

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.ws.close()


@dataclass
class Tally:
    """What the run counted."""

    cases: int = 0
    crashes: int = 0
    internal_errors: int = 0
    state_changes: int = 0
    refused: int = 0
    accepted: int = 0
    expected_closes: int = 0
    wire: int = 0
    """Steps that wrote raw bytes (:meth:`Fuzzer._wire`)."""
    wire_closed: int = 0
    """Of those, the ones whose connection the server closed before all was written."""
    notes: list[str] = field(default_factory=list)

    def note(self, text: str) -> None:
        if len(self.notes) < 20:
            self.notes.append(text)
            print(f"fuzz: {text}", file=sys.stderr)


class Fuzzer:
    """Draws steps with hypothesis and checks each against the server."""

    def __init__(self, srv: ServerThread) -> None:
        self.srv = srv
        self.tally = Tally()
        self.ids = itertools.count(1)
        self.tables: list[Known] = list(srv.tables)
        self.dead_tokens: list[str] = []
        self.players: list[str] = []
        """The player ids of the fuzz sessions (mute, block, kick and report aim at them)."""
        self.tournaments: list[str] = []
        self.matches: list[str] = list(srv.matches)
        """The team matches made at set-up or by fuzz sessions (join, leave … aim at them)."""
        """The ids of the tournaments fuzz sessions created (register, standings … aim at them)."""
        self.seats: dict[int, list[tuple[str, int]]] = {}
        """Where each fuzz session sits: (table, seat), so actions can reach the rules."""
        self.sessions: list[Conn] = [self._session(f"fuzz-{i}") for i in range(SESSIONS)]
        for index, conn in enumerate(self.sessions):
            for game in sorted(GAMES):
                ai = [{"seat": s} for s in range(1, SEATS[game])]
                reply = conn.request(
                    {"type": "create_table", "game": game, "options": {"seat": 0, "ai": ai}},
                    next(self.ids),
                )
                self._joined(index, reply)

    # -- connections ---------------------------------------------------------
    def _open(self) -> Conn:
        ws = connect(self.srv.url, max_size=2**24, compression=None, open_timeout=10)
        return Conn(ws.__enter__())  # closed by Conn.close

    def _session(self, name: str, token: str | None = None) -> Conn:
        conn = self._open()
        hello = {"type": "hello", "version": PROTOCOL_VERSION, "name": name, "token": token}
        welcome = conn.request(hello, next(self.ids))
        if welcome.get("type") != "welcome":
            raise RuntimeError(f"cannot open a fuzz session: {welcome}")
        conn.token = welcome["token"]
        self.players.append(welcome["player_id"])
        return conn

    def _reopen(self, index: int) -> None:
        old = self.sessions[index]
        self.tally.internal_errors += old.internal_errors
        old.close()
        try:
            self.sessions[index] = self._session(f"fuzz-{index}", old.token)
        except RuntimeError:  # the session ended (logout …): its token is revoked
            self.sessions[index] = self._session(f"fuzz-{index}-{next(self.ids)}")
            self.seats.pop(index, None)

    def finish(self) -> None:
        """Close the connections and add up what they saw."""
        for conn in self.sessions:
            self.tally.internal_errors += conn.internal_errors
            conn.close()
        self.sessions = []

    # -- one step ------------------------------------------------------------
    def step(self, data: st.DataObject) -> None:
        """Draw one frame and a sender, send it, check the outcome."""
        who = data.draw(st.integers(0, 5), label="sender")  # 0, 1: a fresh connection
        if who == 0 and data.draw(st.integers(0, 3), label="wire") == 0:
            self._wire(data)
            return
        frame, ref = self._frame(data, (who - 2) % len(self.sessions) if who >= 2 else None)
        self.tally.cases += 1
        size = len(frame) if isinstance(frame, bytes) else len(frame.encode())
        oversized = size > MAX_FRAME
        before = self.srv.read(snapshot)
        if who < 2:
            self._fresh(frame, ref, oversized, before)
        else:
            self._on_session((who - 2) % len(self.sessions), frame, ref, oversized, before)

    def _fresh(
        self, frame: bytes | str, ref: int | None, oversized: bool, before: Snapshot
    ) -> None:
        conn = self._open()
        try:
            reply = self._exchange(conn, frame, ref, oversized)
            if reply is not None and reply.get("type") == "welcome":
                self.dead_tokens.append(reply["token"])
            self._judge(reply, before)
        finally:
            self.tally.internal_errors += conn.internal_errors
            conn.close()

    def _on_session(
        self, index: int, frame: bytes | str, ref: int | None, oversized: bool, before: Snapshot
    ) -> None:
        conn = self.sessions[index]
        try:
            reply = self._exchange(conn, frame, ref, oversized)
        except Closed:
            self._reopen(index)
            return
        self._joined(index, reply)
        self._judge(reply, before)

    def _wire(self, data: st.DataObject) -> None:
        """Raw bytes on a fresh session's socket; then the server must still answer."""
        conn = self._session(f"wire-{self.tally.cases}")
        stream = b"".join(data.draw(st.lists(WIRE, min_size=1, max_size=6), label="frames"))
        pieces = data.draw(st.lists(st.integers(1, 64), max_size=8), label="pieces")
        self.tally.cases += 1
        self.tally.wire += 1
        sock = conn.ws.socket
        try:
            pos = 0
            for size in [*pieces, len(stream)]:
                sock.sendall(stream[pos : pos + size])
                pos += size
                if pos >= len(stream):
                    break
        except OSError:  # the server closed it on a bad frame before all was written
            self.tally.wire_closed += 1
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RDWR)
        self.tally.internal_errors += conn.internal_errors
        conn.close()
        fence = next(self.ids)
        try:
            self.sessions[0].request({"type": "ping"}, fence)
        except (Closed, TimeoutError) as exc:
            self.tally.crashes += 1
            self.tally.note(f"no pong ({exc}) after raw bytes {stream[:80]!r}")
            self._reopen(0)

    def _joined(self, index: int, reply: dict[str, Any] | None) -> None:
        """Remember a table the session joined (and its seat there)."""
        if reply is None or reply.get("type") != "joined":
            return
        table = reply.get("table") or {}
        self.tables.append(Known(table.get("id", ""), reply.get("invite")))
        if isinstance(reply.get("seat"), int):
            self.seats.setdefault(index, []).append((table.get("id", ""), reply["seat"]))

    def _exchange(
        self, conn: Conn, frame: bytes | str, ref: int | None, oversized: bool
    ) -> dict[str, Any] | None:
        """Send and wait; ``None`` when the frame carried no usable id (a ping fences it)."""
        try:
            conn.send(frame)
            if ref is not None:
                return conn.wait_reply(ref)
            fence = next(self.ids)
            conn.request({"type": "ping"}, fence)
            return None
        except Closed as exc:
            # 1009: a frame over max_frame; 1000: the server ended the session on
            # purpose (logout, delete_account, or the account's password changed)
            if (oversized and exc.code == 1009) or exc.code == SESSION_ENDED:
                self.tally.expected_closes += 1
            else:
                self.tally.crashes += 1
                self.tally.note(f"connection closed ({exc.code}) after {_show(frame)}")
            raise
        except TimeoutError as exc:
            self.tally.crashes += 1
            self.tally.note(f"{exc} after {_show(frame)}")
            raise Closed(None) from None

    def _judge(self, reply: dict[str, Any] | None, before: Snapshot) -> None:
        if reply is None:
            return
        if reply.get("type") != "error":
            self.tally.accepted += 1
            for m in [reply.get("match")] + list(reply.get("matches") or ()):
                made = m.get("match_id") if isinstance(m, dict) else None
                if isinstance(made, str) and made not in self.matches:
                    self.matches.append(made)
            if reply.get("type") == "tournaments":
                for t in reply.get("tournaments") or ():
                    if t.get("id") not in self.tournaments:
                        self.tournaments.append(t.get("id"))
            return
        self.tally.refused += 1
        after = self.srv.read(snapshot)
        changes = before.changed(after)
        if changes:
            self.tally.state_changes += 1
            self.tally.note(f"refused {reply.get('code')} yet changed {changes}")

    # -- drawing frames ------------------------------------------------------
    def _frame(self, data: st.DataObject, sender: int | None) -> tuple[bytes | str, int | None]:
        kind = data.draw(st.integers(0, 19), label="kind")
        if kind == 0:
            return data.draw(st.binary(max_size=64), label="bytes"), None
        if kind == 1:
            return data.draw(st.text(max_size=64), label="text"), None
        if kind == 2:
            return msgpack.packb(data.draw(JUNK, label="junk")), None
        if kind == 3:
            return self._huge(data)
        msg = self._message(data, sender)
        how = data.draw(st.integers(0, 9), label="id")
        ref: int | None = None
        if how < 8:
            ref = next(self.ids)
            msg["id"] = ref
        elif how == 8:
            msg["id"] = data.draw(JUNK, label="bad id")
        return msgpack.packb(msg), ref

    def _huge(self, data: st.DataObject) -> tuple[bytes | str, int | None]:
        ref = next(self.ids)
        size = data.draw(st.sampled_from([3000, 60_000, 70_000, 200_000]), label="size")
        shape = data.draw(st.integers(0, 3), label="shape")
        table = self._table_id(data)
        if shape == 0:
            msg: dict[str, Any] = {"type": "chat", "table": table, "text": "x" * size}
        elif shape == 1:
            depth = data.draw(st.integers(10, 400), label="depth")
            msg = {"type": "act", "table": table, "seat": 0, "version": 1}
            msg["action"] = {"type": "play", "card": _nested(depth, "7D")}
        elif shape == 2:
            msg = {"type": "create_table", "game": "scopa", "options": {"game": {}}}
            msg["options"]["game"] = {f"k{i}": i for i in range(size // 8)}
        else:
            msg = {"type": "hello", "version": PROTOCOL_VERSION, "name": "n" * size}
        msg["id"] = ref
        return msgpack.packb(msg), ref

    def _table_id(self, data: st.DataObject) -> Any:
        pick = data.draw(st.integers(0, 9), label="table pick")
        if pick < 8:
            known = _choose(data, self.tables, "table")
            return known.id if known is not None else "none"
        if pick == 8:
            return data.draw(st.sampled_from(["nope", "", "x" * 65]), label="bad table")
        return data.draw(JUNK, label="junk table")

    def _message(self, data: st.DataObject, sender: int | None) -> dict[str, Any]:
        # 0: a wrong type; 1..len(TYPES): every message type (len(TYPES) wraps to hello)
        pick = data.draw(st.integers(0, len(TYPES)), label="type pick")
        if pick == 0:
            mtype: Any = data.draw(st.text(max_size=12) | JUNK, label="bad type")
        else:
            mtype = TYPES[pick % len(TYPES)]
        msg: dict[str, Any] = {"type": mtype}
        known = next((m for m in CLIENT_MESSAGES if m.model_fields["type"].default == mtype), None)
        names = [n for n in known.model_fields if n not in ("type", "id")] if known else []
        facts: Facts | None = None
        for name in names:
            fate = data.draw(st.integers(0, 9), label=f"{name} fate")
            if fate == 9:
                continue  # left out
            if fate == 8:
                msg[name] = data.draw(JUNK, label=f"junk {name}")
                continue
            if name == "table":
                msg["table"] = self._table_id(data)
            else:
                msg[name] = self._field(data, mtype, name)
        if mtype == "act":  # aim: the sender's own seat, the version, a move or junk
            aim = data.draw(st.integers(0, 9), label="aim")
            mine = _choose(data, self.seats.get(sender, []) if sender is not None else [], "mine")
            if aim < 7 and mine is not None and "table" in msg and "seat" in msg:
                msg["table"], msg["seat"] = mine
            target = msg.get("table")
            if isinstance(target, str):
                facts = self.srv.call(functools.partial(table_facts, table_id=target))
            action = self._action(data, facts, msg.get("seat"))
            shift = data.draw(st.sampled_from([0, 0, -1, 1]), label="version shift")
            if facts is not None and "action" in msg:
                msg["action"] = action
                if "version" in msg:
                    msg["version"] = max(0, facts.version + shift)
        if data.draw(st.integers(0, 19), label="extra") == 0:
            msg[data.draw(st.text(max_size=6), label="extra key")] = data.draw(JUNK)
        return msg

    def _field(self, data: st.DataObject, mtype: Any, name: str) -> Any:
        draw = data.draw
        if name == "seat":
            return draw(st.integers(0, 4) | st.none(), label="seat")
        if name == "version":
            return PROTOCOL_VERSION if mtype == "hello" else draw(st.integers(0, 200), label="v")
        if name == "name":
            names = st.sampled_from(["alice", "Server", "AI (hard)", " ", "\u3164", "Аnn"])
            return draw(names | st.text(max_size=24), label="name")
        if name in ("password", "new_password"):
            hostile = ["correct horse", "short", "x" * 300, "' OR '1'='1' --", "\x00" * 9]
            return draw(st.sampled_from(hostile) | st.text(max_size=40), label=name)
        if name == "token":
            dead = _choose(data, self.dead_tokens, "dead token")
            return draw(st.just(dead) | st.text(max_size=40) | st.none(), label="token")
        if name == "game":
            return draw(st.sampled_from([*GAMES, "chess"]), label="game")
        if name == "level":
            levels = [lv for g in GAMES for lv in policy_names(g)]
            return draw(st.sampled_from([*levels, "godlike"]) | st.none(), label="level")
        if name == "invite":
            invite = _choose(data, [t.invite for t in self.tables if t.invite], "invite")
            return draw(st.just(invite) | st.text(max_size=10), label="invite")
        if name == "features":
            known = st.lists(st.sampled_from(["update_ref", "teleport", ""]), max_size=4)
            return draw(known | JUNK, label="features")
        if name == "text":
            return draw(st.text(min_size=0, max_size=40), label="text")
        if name == "player":  # a fuzz session, or a look-alike, an account id, hostile text
            session = _choose(data, self.players, "player")
            hostile = ["a_0000000000000000", "p_", "' OR 1=1 --", "\x00", "p" * 32]
            return draw(
                st.just(session) | st.sampled_from(hostile) | st.text(max_size=40), label=name
            )
        if name == "reason":
            hostile = ["insults", " ", "\x07bell", "x" * 500, "x" * 501, "<script>", "\u202e"]
            return draw(st.sampled_from(hostile) | st.text(max_size=60), label="reason")
        if name == "game_no":
            return draw(st.integers(-1, 5) | st.none(), label="game_no")
        if name == "options":
            return self._options(data)
        if name == "cursor":  # history's: made by the server, or forged
            forged = ["MTI6dDEuMQ", "LTE6eA", "=" * 8, "' OR 1=1 --", "x" * 300, "\x00"]
            return draw(st.sampled_from(forged) | st.text(max_size=24) | st.none(), label="cursor")
        if name == "limit":
            return draw(st.integers(-5, 100), label="limit")
        if name == "page":  # a leaderboard's: from 1 to 10,000, or out of range
            return draw(st.integers(-2, 10_002) | st.none(), label="page")
        if name == "bots":
            return draw(st.booleans() | JUNK, label="bots")
        if name == "game_id":  # a stored game: of a table seen here, or forged
            seen = [f"{t.id}.1" for t in self.tables]
            stored = _choose(data, seen, "stored game")
            fakes = st.sampled_from(["a.1", "x" * 100, "../1", "%.1", "t1.-1"])
            return draw(st.just(stored) | fakes | st.text(max_size=12), label="game_id")
        if name == "set_id":  # a duplicate set: today's daily, a made one's shape, forged
            today = f"{datetime.now(UTC):%Y%m%d}"
            daily = st.sampled_from([f"daily-{g}-{today}" for g in GAMES] + ["daily-x-1"])
            made_up = st.sampled_from(["set-000000000000", "../x", "' OR 1=1 --", "x" * 41])
            return draw(daily | made_up | st.text(max_size=12), label="set_id")
        if name in ("board", "boards"):  # a duplicate board number or count, or out of range
            return draw(st.integers(-1, 70) | st.none(), label=name)
        if name == "minutes":  # a duplicate set's duration
            return draw(st.integers(-1, 20_000), label="minutes")
        if name == "tournament":  # one created here, or forged
            made = _choose(data, self.tournaments, "tournament")
            fakes = st.sampled_from(["T", "T00", "x" * 40, "' OR 1=1 --", "\x00"])
            return draw(st.just(made) | fakes | st.text(max_size=12), label="tournament")
        if name == "match_id":  # a team match made here, or forged
            made = _choose(data, self.matches, "team match")
            fakes = st.sampled_from(["M", "M00", "x" * 41, "' OR 1=1 --", "\x00", "M-b1-t0"])
            return draw(st.just(made) | fakes | st.text(max_size=12), label="match_id")
        if name == "team":
            return draw(st.sampled_from(["a", "b", "c", "A"]) | st.none() | JUNK, label="team")
        if name == "slot":
            return draw(st.integers(-1, 9) | st.none(), label="slot")
        if name == "kind":
            kinds = st.sampled_from(["swiss", "arena", "duplicate-swiss", "knockout"])
            return draw(kinds | JUNK, label="kind")
        if name == "starts_at":  # never soon: a fuzz tournament must not start mid-run
            later = st.floats(4e9, 5e9)  # fixed bounds: the same draws for the same prefix
            return draw(later | st.floats(-1, 1e6) | st.none(), label="starts_at")
        if name in ("rounds", "duration"):
            return draw(st.integers(-1, 100_000) | st.none(), label=name)
        if name == "finished":
            return draw(st.booleans() | JUNK, label="finished")
        if name == "action":
            return draw(JUNK, label="action")
        return draw(JUNK, label=name)

    def _options(self, data: st.DataObject) -> Any:
        draw = data.draw
        seats = st.integers(0, 4)
        ai = st.lists(
            st.fixed_dictionaries(
                {"seat": seats}, optional={"level": st.sampled_from(["random", "easy", "hard"])}
            ),
            max_size=4,
        )
        game = st.dictionaries(st.sampled_from(["target", "deals", "pattern", "zzz"]), JUNK)
        return draw(
            st.fixed_dictionaries(
                {},
                optional={
                    "seat": seats | st.none(),
                    "ai": ai,
                    "private": st.booleans(),
                    "fill_after": st.floats(0, 2) | st.none(),
                    "turn_timer": st.floats(0, 5) | st.none(),
                    "ai_delay": st.floats(0, 1),
                    "game": game | st.just({"target": 1}),
                    "rated": st.booleans(),
                    "hints": st.booleans(),
                    "duplicate": st.fixed_dictionaries(  # only the server may set it
                        {"set_id": st.text(max_size=8), "board": st.integers(0, 3)}
                    ),
                },
            )
            | JUNK,
            label="options",
        )

    def _action(self, data: st.DataObject, facts: Facts | None, seat: Any) -> Any:
        """A legal move of the table, one of another game or deal, or junk.

        Every draw happens whatever the table looks like, so that hypothesis
        sees the same shape of choices for the same prefix (the server moves on).
        """
        pick = data.draw(st.integers(0, 4), label="action pick")
        legal = facts.legal.get(seat, []) if facts is not None and isinstance(seat, int) else []
        mine = _choose(data, legal, "legal action")
        game = GAMES[data.draw(st.sampled_from(sorted(GAMES)), label="other game")]
        state = game.new_state(game.options(), data.draw(st.integers(0, 9), label="deal"))
        foreign = [to_plain(a) for a in game.legal_actions(state, game.to_act(state)[0])]
        other = foreign[data.draw(st.integers(0, 10_000), label="foreign action") % len(foreign)]
        junk = data.draw(ACTION_LIKE, label="junk action")
        if pick <= 1 and mine is not None:
            return mine
        return other if pick == 2 else junk


def _choose(data: st.DataObject, items: list[T], label: str) -> T | None:
    """One of ``items`` (``None`` if empty), drawn as an index so the draw never varies."""
    index = data.draw(st.integers(0, 1 << 16), label=label)
    return items[index % len(items)] if items else None


def _show(frame: bytes | str) -> str:
    return repr(frame[:80]) + ("…" if len(frame) > 80 else "")


def _examples(fuzzer: Fuzzer, count: int, seed: int) -> None:
    """One batch of ``count`` hypothesis examples (no shrinking: the server's state moves on)."""

    @hypothesis_seed(seed)
    @settings(
        max_examples=count,
        deadline=None,
        database=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(st.data())
    def run(data: st.DataObject) -> None:
        with contextlib.suppress(Closed):
            fuzzer.step(data)

    with warnings.catch_warnings():
        # the server's thread draws its keepalive pings' payloads from the global
        # ``random`` (websockets), which hypothesis takes for a strategy using it
        # when a ping falls in a draw; the steps' own draws never use it
        warnings.filterwarnings(
            "ignore",
            message="Do not use the `random` module inside strategies",
            category=HypothesisDeprecationWarning,
        )
        run()


def fuzz(seconds: float, seed: int = 0, progress: bool = True) -> dict[str, Any]:
    """Fuzz a fresh in-process server for about ``seconds``; the counts (see module docstring)."""
    started = time.monotonic()
    with ServerThread(CONFIG) as srv:
        fuzzer = Fuzzer(srv)
        last = started
        for batch in itertools.count():
            if time.monotonic() - started >= seconds:
                break
            _examples(fuzzer, 25, seed * 100_003 + batch)
            if batch % 8 == 0:
                for death in srv.call(dead_tasks):
                    fuzzer.tally.crashes += 1
                    fuzzer.tally.note(death)
            if progress and time.monotonic() - last >= 1.0:
                last = time.monotonic()
                t = fuzzer.tally
                print(
                    f"fuzz: {t.cases} cases, {t.refused} refused, {t.accepted} accepted, "
                    f"{t.crashes} crashes, {t.internal_errors} internal, "
                    f"{t.state_changes} changes",
                    file=sys.stderr,
                )
        fuzzer.finish()
        deaths = srv.call(dead_tasks)
        internal = srv.call(
            lambda s: s.metrics.value("cardavia_errors_total", code="internal_error")
        )
    tally = fuzzer.tally
    tally.crashes += len(deaths) + len(srv.tap.exceptions)
    for text in deaths + srv.tap.exceptions[:5]:
        tally.note(text)
    return {
        "cases": tally.cases,
        "crashes": tally.crashes,
        "internal_errors": max(tally.internal_errors, int(internal)),
        "state_changes": tally.state_changes,
        "refused": tally.refused,
        "accepted": tally.accepted,
        "expected_closes": tally.expected_closes,
        "wire": tally.wire,
        "wire_closed": tally.wire_closed,
        "errors_logged": srv.tap.errors,
        "seconds": round(time.monotonic() - started, 1),
        "notes": tally.notes[:5],
    }


def main(argv: list[str] | None = None) -> int:
    """``python -m bench.fuzz``: exit status 1 when anything but ``cases`` is non-zero."""
    doc = (__doc__ or "").split("\n")[0]
    parser = argparse.ArgumentParser(prog="python -m bench.fuzz", description=doc)
    parser.add_argument("--seconds", type=float, default=30.0, help="how long to fuzz")
    parser.add_argument("--seed", type=int, default=0, help="hypothesis seed of the first batch")
    args = parser.parse_args(argv)
    result = fuzz(args.seconds, args.seed)
    print(json.dumps(result))
    bad = result["crashes"] + result["internal_errors"] + result["state_changes"]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
