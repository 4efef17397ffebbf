"""The decisions of one table, sans I/O: seats, the game, validation, who gets what.

:class:`TableCore` holds a table's state and answers every request with the
messages to send (``(player_id, message)`` pairs) and what to persist; it
never touches a socket, a clock or a random source of its own (time and
seeds are passed in).  The table actor (:mod:`server.tables.actor`) owns one core
and feeds it, one command at a time.

Information rules: each seat receives only ``game.view(state, seat)`` and the
events whose audience includes it; spectators receive the spectator view and
the public events.  Full information (every card) leaves only through the
replay of a finished game.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable
from typing import Any, Final

from pydantic import BaseModel

from engine import reasons
from engine.codec import to_plain
from engine.game import Event, IllegalAction
from engine.policy import Peers
from protocol.codec import unchecked
from protocol.errors import ErrorCode
from protocol.models import SeatInfo, TableInfo
from protocol.server_messages import ChatLine, GameOver, Kicked, Reason, Snapshot, TableChanged
from server.persist.store import LoggedAction
from server.players.names import skeleton
from server.tables.action_cache import decoder_for
from server.tables.chat import CHAT_KEPT, ChatRules
from server.tables.options import RequestError, TableSetup
from server.tables.updates import Change, UpdateBuilder
from server.tables.values import (
    ActedBy,
    AiTurn,
    Effects,
    FinishedGame,
    Out,
    SeatSlot,
    Status,
)

# Final names, read on every move: see compiled.modules.HOT_PATH.
_LOGGED_ACTION: Final = LoggedAction
_EFFECTS: Final = Effects
_CHANGE: Final = Change

LISTING_TTL: Final = 1.0
"""Seconds a table's lobby summary is listed again as it was (:meth:`TableCore.listed_info`)."""

FIXED_FIELDS: Final = frozenset(
    {
        "id",
        "setup",
        "game",
        "quick",
        "invite",
        "seed_source",
        "ai_delay",
        "grace",
        "replays_kept",
        "fill_level",
        "max_spectators",
        "waiting_grace",
        "ai_table_linger",
        "_decoder",
        "_plain_options",
    }
)
"""The fields of a :class:`TableCore` set when it is made (or rebuilt from its record)
and changed by no command: a checkpoint need not keep them."""
KEPT_FIELDS: Final = frozenset({"chat_rules", "_out", "_seat_infos"})
"""The fields a failed command's rollback leaves as they are: the chat's rate (a line
counts against it whether or not it was stored) and caches, which hold what they were
built from (the views' plain forms, each seat's summary by what it shows), so that
what they hold after a rollback is still right."""


class Checkpoint:
    """Every field of a :class:`TableCore` that a command may change, as it was
    (:meth:`TableCore.checkpoint`; :meth:`TableCore.restore` puts them back).

    With :data:`FIXED_FIELDS` and :data:`KEPT_FIELDS`, these are all of a core's
    fields (``tests/server/test_table_core.py`` checks it): a field added to the
    core is one of the three, or the test says which is missing.  Taken before
    every command when the store may fail, so kept cheap: the seats' slots are
    copied, not the objects they hold; the log, which a command only appends to
    (or replaces, for a new game), is kept as the list and its length.
    """

    __slots__ = (
        "_covered_seen",
        "_listed",
        "_ticked_at",
        "archive",
        "fill_at",
        "finished_at",
        "game_no",
        "kicked",
        "log",
        "log_length",
        "owner",
        "recent_chat",
        "rematch_votes",
        "seats",
        "seed",
        "spectators",
        "spectators_away",
        "state",
        "status",
        "turn_started",
        "version",
    )

    def __init__(self, core: TableCore) -> None:
        self.seats: Final = [slot.copy() for slot in core.seats]
        self.spectators: Final = core.spectators.copy()
        self.spectators_away: Final = core.spectators_away.copy()
        self.status: Final = core.status
        self.state: Final = core.state  # immutable (engine.game)
        self.version: Final = core.version
        self.game_no: Final = core.game_no
        self.seed: Final = core.seed
        self.log: Final = core.log
        self.log_length: Final = len(core.log)
        self.turn_started: Final = core.turn_started
        self.rematch_votes: Final = core.rematch_votes.copy()
        self.archive: Final = core.archive.copy()
        self.owner: Final = core.owner
        self.kicked: Final = core.kicked.copy()
        self.recent_chat: Final = core.recent_chat.copy()
        self.fill_at: Final = core.fill_at
        self.finished_at: Final = core.finished_at
        self._covered_seen: Final = core._covered_seen  # replaced, never changed in place
        self._listed: Final = core._listed
        self._ticked_at: Final = core._ticked_at


class TableCore:
    """One table's seats, game and rules of engagement (see module docstring)."""

    def __init__(
        self,
        table_id: str,
        setup: TableSetup,
        *,
        owner: str | None,
        quick: bool,
        invite: str | None,
        seed_source: Callable[[], int],
        ai_delay: float,
        disconnect_grace: float,
        chat_max_len: int = 300,
        chat_per_minute: int = 20,
        replays_kept: int = 5,
        fill_at: float | None = None,
        fill_level: str | None = None,
        max_spectators: int | None = None,
        waiting_grace: float | None = None,
        ai_table_linger: float = 30.0,
        created: float = float("-inf"),
    ) -> None:
        self.id = table_id
        self.setup = setup
        self.game = setup.game
        self.owner = owner
        self.quick = quick
        self.invite = invite
        self.seed_source = seed_source
        self.ai_delay = ai_delay
        self.grace = disconnect_grace
        self.chat_rules = ChatRules(chat_max_len, chat_per_minute)
        self.replays_kept = replays_kept
        self.fill_at = fill_at
        self.fill_level = fill_level or setup.strongest
        self.seats = [SeatSlot() for _ in range(setup.seats)]
        for a in setup.options.ai:
            self.seats[a.seat] = SeatSlot(kind="ai", level=a.level or setup.strongest)
        self.spectators: dict[str, str] = {}
        self.status: Status = "waiting"
        self.state: Any = None
        self.version = 0
        self.game_no = 0
        self.seed = 0
        self.log: list[LoggedAction] = []
        self.turn_started = 0.0
        self.rematch_votes: set[int] = set()
        self.archive: list[FinishedGame] = []
        self._covered_seen: set[int] = set()
        self.max_spectators = max_spectators
        self.waiting_grace = waiting_grace
        self.spectators_away: dict[str, float] = {}
        """Spectators whose connection dropped, and since when."""
        self.kicked: set[str] = set()
        """Players the owner removed before the game began: they may not come back."""
        self.recent_chat: deque[ChatLine] = deque(maxlen=CHAT_KEPT)
        """The last chat lines said here, which a ``report`` keeps for the operators."""
        self.ai_table_linger = ai_table_linger
        self.finished_at: float | None = None
        self._ticked_at = created
        """The clock of the last :meth:`tick` (at first, the table's creation: a fill due
        at once is the tick its creator queues after their join): what was due by then
        has been handled (:meth:`next_wakeup`)."""
        self._decoder = decoder_for(self.game)
        self._listed: tuple[float, TableInfo] | None = None
        """The lobby summary last built, and when (:meth:`listed_info`)."""
        self._out = UpdateBuilder()
        self._seat_infos: list[tuple[tuple[Any, ...], SeatInfo] | None] = [None] * len(self.seats)
        """Each seat's last summary and what it was built from (:meth:`_seat_info`)."""
        self._plain_options: dict[str, Any] = to_plain(setup.game_options)
        """The game options as plain data (they never change), for :meth:`info`."""

    # -- rollback --------------------------------------------------------------
    def checkpoint(self) -> Checkpoint:
        """What a command may change here, as it is now (:meth:`restore` puts it back):
        the table actor takes one before a command whose writes may fail."""
        return Checkpoint(self)

    def restore(self, checkpoint: Checkpoint) -> None:
        """The core as it was at ``checkpoint`` (a command's write to the store failed:
        nothing of it may stay).  Each slot copy is put back as it is: a checkpoint
        is restored at most once."""
        self.seats = checkpoint.seats
        self.spectators = checkpoint.spectators
        self.spectators_away = checkpoint.spectators_away
        self.status = checkpoint.status
        self.state = checkpoint.state
        self.version = checkpoint.version
        self.game_no = checkpoint.game_no
        self.seed = checkpoint.seed
        log = checkpoint.log
        del log[checkpoint.log_length :]
        self.log = log
        self.turn_started = checkpoint.turn_started
        self.rematch_votes = checkpoint.rematch_votes
        self.archive = checkpoint.archive
        self.owner = checkpoint.owner
        self.kicked = checkpoint.kicked
        self.recent_chat = checkpoint.recent_chat
        self.fill_at = checkpoint.fill_at
        self.finished_at = checkpoint.finished_at
        self._covered_seen = checkpoint._covered_seen
        self._listed = checkpoint._listed
        self._ticked_at = checkpoint._ticked_at

    # -- who is here ---------------------------------------------------------
    def seat_of(self, player_id: str) -> int | None:
        """The seat ``player_id`` holds here, if any."""
        for i, slot in enumerate(self.seats):
            if slot.kind == "human" and slot.player_id == player_id:
                return i
        return None

    def is_member(self, player_id: str) -> bool:
        """Seated here as a human or watching."""
        return player_id in self.spectators or self.seat_of(player_id) is not None

    def members(self) -> list[str]:
        """Every human here: seated players, then spectators."""
        seated = [s.player_id for s in self.seats if s.kind == "human" and s.player_id]
        return seated + list(self.spectators)

    def name_taken(self, name: str, player_id: str | None = None) -> bool:
        """Whether somebody else here (seated or watching) uses a name that looks
        like ``name`` (the same :func:`~server.players.names.skeleton`)."""
        want = skeleton(name)
        for slot in self.seats:
            if slot.kind != "human" or slot.name is None or slot.player_id == player_id:
                continue
            if skeleton(slot.name) == want:
                return True
        return any(
            pid != player_id and skeleton(other) == want for pid, other in self.spectators.items()
        )

    def _check_name(self, player_id: str, name: str) -> None:
        if self.name_taken(name, player_id):
            raise RequestError(
                ErrorCode.NAME_TAKEN, f"somebody at this table is called (like) {name!r}"
            )

    def abandoned_until(self) -> float | None:
        """When a waiting table that no connected human is at closes (None: not abandoned)."""
        if self.status != "waiting" or self.waiting_grace is None:
            return None
        since: list[float] = []
        for slot in self.seats:
            if slot.kind == "human":
                if slot.connected or slot.away_since is None:
                    return None
                since.append(slot.away_since)
        for pid in self.spectators:
            if pid not in self.spectators_away:
                return None
            since.append(self.spectators_away[pid])
        return max(since) + self.waiting_grace if since else None

    def has_free_seat(self) -> bool:
        """Whether a seat is still free (:meth:`free_seats`, without building the list)."""
        return any(slot.kind == "empty" for slot in self.seats)

    def free_seats(self) -> list[int]:
        """Seats nobody holds yet."""
        return [i for i, s in enumerate(self.seats) if s.kind == "empty"]

    def _to_all(self, message: BaseModel) -> list[Out]:
        return [(pid, message) for pid in self.members()]

    def _changed(self, now: float) -> list[Out]:
        info = self.info(now)
        self._listed = (now, info)  # the lobby lists the change at once
        return self._to_all(unchecked(TableChanged, {"type": "table", "table": info}))

    # -- lobby summary -------------------------------------------------------
    def info(self, now: float = 0.0) -> TableInfo:
        """The table as the lobby shows it.

        Built from the table's own values, so not validated again (as updates
        are, :func:`protocol.codec.unchecked`; tests check that it equals and
        encodes as the validated summary): it is built at every change of
        seating or status and, for the lobby's listing, once a second per table.
        """
        levels = self.peers()
        seats = tuple(
            self._seat_info(i, s, levels[i], s.left or self.covered(s, now))
            for i, s in enumerate(self.seats)
        )
        opts = self.setup.options
        return unchecked(
            TableInfo,
            {
                "id": self.id,
                "game": self.game.id,
                "title": self.game.title,
                "status": self.status,
                "seats": seats,
                "spectators": len(self.spectators),
                "private": opts.private,
                "quick": self.quick,
                "owner": self.owner,
                "game_no": self.game_no,
                "version": self.version,
                "turn_timer": opts.turn_timer,
                "ai_delay": float(self.ai_delay),
                "options": self._plain_options,
                "rematch_votes": tuple(sorted(self.rematch_votes)),
                "hints": opts.hints,
                "rated": opts.rated,
            },
        )

    def _seat_info(self, i: int, slot: SeatSlot, level: str | None, covering: bool) -> SeatInfo:
        """Seat ``i``'s summary: the one built last, if nothing in it changed since (a
        table's summary is built at every change of seating or status, and each
        rematch vote is one, while the seats mostly stay as they were)."""
        key = (slot.kind, slot.player_id, slot.name, level, slot.connected, covering, slot.bot)
        cached = self._seat_infos[i]
        if cached is not None and cached[0] == key:
            return cached[1]
        info = unchecked(
            SeatInfo,
            {
                "seat": i,
                "kind": slot.kind,
                "player_id": slot.player_id,
                "name": slot.name,
                "level": level,
                "connected": slot.connected,
                "ai_covering": covering,
                "bot": slot.bot,
            },
        )
        self._seat_infos[i] = (key, info)
        return info

    def listed_info(self, now: float) -> TableInfo:
        """:meth:`info` as the lobby lists it: built again when the seating or the status
        changed (:meth:`_changed`) or once it is :data:`LISTING_TTL` seconds old (the
        version, a seat the AI now covers), so that listing a thousand tables again and
        again does not build a thousand summaries each time."""
        listed = self._listed
        if listed is None or not 0 <= now - listed[0] < LISTING_TTL:
            listed = self._listed = (now, self.info(now))
        return listed[1]

    def covered(self, slot: SeatSlot, now: float) -> bool:
        """Whether the AI plays ``slot``'s turns at ``now`` because its human has been away
        longer than the grace (a rated game counts that as leaving, if it lasts to the end)."""
        return (
            slot.kind == "human"
            and not slot.connected
            and slot.away_since is not None
            and now >= slot.away_since + self.grace
        )

    # -- seating -------------------------------------------------------------
    def join(
        self,
        player_id: str,
        name: str,
        seat: int | None,
        now: float,
        *,
        present: bool = True,
        bot: bool = False,
        account: str | None = None,
    ) -> Effects:
        """Seat ``player_id`` (at ``seat`` or the first free one); start when full.

        ``bot``: a bot account's session, labelled so in the seat's summary;
        ``account``: the session's account id, recorded with the game.
        ``present`` False: the player's connection closed while the join waited its
        turn; the seat is taken as by a player who then disconnected (:meth:`disconnect`),
        so a quick-play table still waiting does not seat them at all, and closes
        if it was opened for them.
        """
        held = self.seat_of(player_id)
        if held is not None:
            raise RequestError(ErrorCode.FORBIDDEN, f"you already hold seat {held} here")
        self._check_not_kicked(player_id)
        if self.status == "playing" and self._stood_in(seat):
            assert seat is not None
            self._check_name(player_id, name)
            self.spectators.pop(player_id, None)
            self.seats[seat] = SeatSlot(
                kind="human", player_id=player_id, name=name, bot=bot, account=account
            )
            eff = Effects(outs=self._changed(now) + self.resync(player_id, now))
            return eff if present else self._merge(eff, self.disconnect(player_id, now))
        if self.status != "waiting":
            raise RequestError(ErrorCode.TABLE_FULL, "the game has started: spectate instead")
        if self.setup.options.rated:
            self._check_rated_seat(account)
        free = self.free_seats()
        if seat is None:
            if not free:
                raise RequestError(ErrorCode.TABLE_FULL, "no free seat")
            seat = free[0]
        elif seat >= len(self.seats):
            raise RequestError(ErrorCode.NOT_FOUND, f"seats are 0 to {len(self.seats) - 1}")
        elif seat not in free:
            raise RequestError(ErrorCode.TABLE_FULL, f"seat {seat} is taken")
        self._check_name(player_id, name)
        if not present and self._gives_up_seats():
            return Effects(closed=not self.members())
        self.spectators.pop(player_id, None)
        self.spectators_away.pop(player_id, None)
        self.seats[seat] = SeatSlot(
            kind="human", player_id=player_id, name=name, bot=bot, account=account
        )
        if self.owner is None:
            self.owner = player_id
        eff = self._start_if_full(now)
        return eff if present else self._merge(eff, self.disconnect(player_id, now))

    def _stood_in(self, seat: int | None) -> bool:
        """Whether ``seat`` is a team match member's seat the AI plays in their absence
        (issue 56, docs/duplicate.md Team matches): the member takes it back, as a player
        who reconnects does (who may join is checked before, the seats being reserved)."""
        ref = self.setup.options.duplicate
        if ref is None or ref.match_table is None or seat is None:
            return False
        if not 0 <= seat < len(self.seats) or self.seats[seat].kind != "ai":
            return False
        return all(a.seat != seat for a in self.setup.options.ai)

    def _check_rated_seat(self, account: str | None) -> None:
        """At a rated table every seat is an account's (its games change that account's
        rating), and one account holds one seat: it cannot play both sides of a game."""
        if account is None:
            raise RequestError(
                ErrorCode.NOT_LOGGED_IN, "a rated table seats accounts only: log in to play"
            )
        for i, slot in enumerate(self.seats):
            if slot.kind != "empty" and slot.account == account:
                raise RequestError(ErrorCode.FORBIDDEN, f"your account already holds seat {i}")

    def _gives_up_seats(self) -> bool:
        """Whether a seat here is given up when its player's connection closes: at a
        quick-play table that still waits, where the wait is for people who are there
        (a session that is gone must not hold a seat, nor be matched with a newcomer)."""
        return self.quick and self.status == "waiting"

    def spectate(self, player_id: str, name: str, now: float) -> Effects:
        """Watch the table: a snapshot of the spectator view if a game is on.

        Nobody watches a duplicate board (issue 56): its cards are a board others have
        yet to play, and the set's results are compared only once they have."""
        if self.setup.options.duplicate is not None:
            raise RequestError(ErrorCode.FORBIDDEN, "a duplicate board is played unwatched")
        if self.seat_of(player_id) is not None:
            raise RequestError(ErrorCode.FORBIDDEN, "you are seated here; leave to watch")
        self._check_not_kicked(player_id)
        if (
            player_id not in self.spectators
            and self.max_spectators is not None
            and len(self.spectators) >= self.max_spectators
        ):
            raise RequestError(
                ErrorCode.QUOTA_EXCEEDED,
                f"this table admits {self.max_spectators} spectators",
                "max_spectators_per_table",
            )
        self._check_name(player_id, name)
        self.spectators[player_id] = name
        return Effects(outs=self._changed(now) + self.resync(player_id, now))

    def leave(self, player_id: str, now: float) -> Effects:
        """Leave: a seat taken in play goes to the AI; the table closes when no human is left."""
        seat = self.seat_of(player_id)
        if seat is None and player_id not in self.spectators:
            raise RequestError(ErrorCode.NOT_AT_TABLE, "you are not at this table")
        eff = Effects()
        if seat is not None:
            slot = self.seats[seat]
            if self.status == "playing":
                self.seats[seat] = SeatSlot(
                    kind="ai",
                    name=slot.name,
                    level=self.setup.strongest,
                    left=True,
                    bot=slot.bot,
                    account=slot.account,
                )
            else:
                self.seats[seat] = SeatSlot()
            self.rematch_votes.discard(seat)
        self.spectators.pop(player_id, None)
        self.spectators_away.pop(player_id, None)
        if self.owner == player_id:
            members = self.members()
            self.owner = members[0] if members else None
        if not self.members() and not self._plays_out():
            eff.closed = True
            return eff
        eff.outs = self._changed(now)
        if self.status == "finished":
            eff = self._merge(eff, self._rematch_if_agreed(now))
        return eff

    def _plays_out(self) -> bool:
        """A duplicate board in play is played to its end by the AI once everybody has
        left: closed, the board would be dealt again, to players who have seen its cards
        (docs/duplicate.md); its result counts as the leavers'."""
        return self.status == "playing" and self.setup.options.duplicate is not None

    def kick(self, owner_id: str, player_id: str, now: float) -> Effects:
        """The owner removes ``player_id`` (seated or watching) before the game begins;
        the player is told (``kicked``) and may not join or watch this table again."""
        if owner_id != self.owner:
            raise RequestError(ErrorCode.FORBIDDEN, "only the table's owner may remove players")
        if self.status != "waiting":
            raise RequestError(
                ErrorCode.GAME_IN_PROGRESS, "players can be removed only before the game begins"
            )
        if player_id == owner_id:
            raise RequestError(ErrorCode.FORBIDDEN, "leave the table instead of removing yourself")
        if not self.is_member(player_id):
            raise RequestError(ErrorCode.NOT_AT_TABLE, "this player is not at this table")
        eff = self.leave(player_id, now)
        self.kicked.add(player_id)
        told = Kicked(table=self.id, reason="the table's owner removed you")
        eff.outs = [(player_id, told), *eff.outs]
        return eff

    def _check_not_kicked(self, player_id: str) -> None:
        if player_id in self.kicked:
            raise RequestError(ErrorCode.KICKED, "the table's owner removed you from this table")

    def disconnect(self, player_id: str, now: float) -> Effects:
        """The player's connection dropped: their seat waits, then the AI covers; at a
        quick-play table that still waits the seat is given up, as by :meth:`leave` (the
        table closes when nobody is left), see :meth:`_gives_up_seats`."""
        seat = self.seat_of(player_id)
        if seat is None:
            if player_id in self.spectators:
                self.spectators_away[player_id] = now
            return Effects()
        if self._gives_up_seats():
            return self.leave(player_id, now)
        slot = self.seats[seat]
        slot.connected = False
        slot.away_since = now
        return Effects(outs=self._changed(now))

    def reconnect(self, player_id: str, now: float) -> Effects:
        """The player is back: their seat is theirs again; a full snapshot follows."""
        self.spectators_away.pop(player_id, None)
        seat = self.seat_of(player_id)
        if seat is not None:
            slot = self.seats[seat]
            slot.connected = True
            slot.away_since = None
        return Effects(outs=self._changed(now) + self.resync(player_id, now))

    def request_start(self, player_id: str, now: float) -> Effects:
        """The owner starts a waiting table now; the AI takes the empty seats."""
        if player_id != self.owner:
            raise RequestError(ErrorCode.FORBIDDEN, "only the table's owner may start it")
        if self.status != "waiting":
            raise RequestError(ErrorCode.NOT_PLAYING, "the table is not waiting")
        return self.fill_with_ai(now)

    def fill_with_ai(self, now: float) -> Effects:
        """Every empty seat to the AI (at the table's fill level), then start."""
        for i, slot in enumerate(self.seats):
            if slot.kind == "empty":
                self.seats[i] = SeatSlot(kind="ai", level=self.fill_level)
        self.fill_at = None
        return self._start_if_full(now)

    def _start_if_full(self, now: float) -> Effects:
        if self.status == "waiting" and not self.free_seats():
            return self._start(now)
        return Effects(outs=self._changed(now))

    # -- the game ------------------------------------------------------------
    def _start(self, now: float) -> Effects:
        self.seed = self.seed_source()
        self.state = self.game.new_state(self.setup.game_options, self.seed)
        self.game_no += 1
        self.version += 1
        self.log = []
        self.status = "playing"
        self.turn_started = now
        self.rematch_votes.clear()
        self.fill_at = None
        eff = Effects(outs=self._changed(now), started=(self.game_no, self.seed))
        start = _CHANGE(self.id, self.game_no, self.version, None, None, self.timer_left(now))
        eff.outs.extend(self._updates(self.game.start_events(self.state), start))
        return eff

    def act(
        self,
        player_id: str | None,
        seat: int,
        version: int,
        action: Any,
        by: ActedBy,
        now: float,
        *,
        answer: bool = False,
        ref: int | None = None,
    ) -> Effects:
        """Validate and apply one action (a human's, or the AI's when ``player_id`` is None).

        Checks in order: a game is on, the seat is the sender's (or due to the
        AI), the version is current, the action decodes and the rules allow it.
        ``answer`` (a human's request ``ref``, the ``update_ref`` feature): the
        player's own update carries ``ref`` and answers the request
        (``Effects.answered``: no ``ok`` is due).
        """
        if self.status != "playing":
            raise RequestError(ErrorCode.NOT_PLAYING, f"the table is {self.status}")
        if player_id is not None:
            held = self.seat_of(player_id)
            if held is None and player_id not in self.spectators:
                raise RequestError(ErrorCode.NOT_AT_TABLE, "you are not at this table")
            if held != seat:
                raise RequestError(ErrorCode.FORBIDDEN, f"seat {seat} is not yours")
        elif self.ai_reason(seat, now) is None:
            raise RequestError(ErrorCode.FORBIDDEN, f"seat {seat} is not the AI's to play")
        if version != self.version:
            raise RequestError(
                ErrorCode.STALE_VERSION,
                f"the table is at version {self.version}, not {version}",
            )
        try:
            typed, plain = self._decoder.decode(action)
            transition = self.game.apply(self.state, seat, typed)
        except IllegalAction as exc:
            code = ErrorCode.NOT_YOUR_TURN if exc.code == "not_your_turn" else None
            raise RequestError(
                code or ErrorCode.ILLEGAL_ACTION, exc.message, exc.code, wire_reason(exc.reason)
            ) from None
        self.state = transition.state
        self.version += 1
        self.turn_started = now
        logged = _LOGGED_ACTION(seat=seat, action=plain, by=by)
        self.log.append(logged)
        eff = _EFFECTS(applied=logged)
        asker = player_id if answer else None
        change = _CHANGE(
            self.id, self.game_no, self.version, seat, by, self.timer_left(now), asker, ref
        )
        eff.outs = self._updates(transition.events, change)
        eff.answered = asker is not None
        if self.game.is_over(self.state):
            eff.outs.extend(self._finish(now))
            # a board the AI played out once everybody left (_plays_out) closes now
            eff.closed = self.setup.options.duplicate is not None and not self.members()
        return eff

    def _updates(self, events: Iterable[Event], change: Change) -> list[Out]:
        """An ``update`` of ``change`` for each seated human and one shared by every
        spectator."""
        humans = [
            (seat, slot.player_id)
            for seat, slot in enumerate(self.seats)
            if slot.kind == "human" and slot.player_id
        ]
        return self._out.updates(
            self.game, self.state, events, change, humans, self.spectators.keys()
        )

    def _finish(self, now: float) -> list[Out]:
        self.status = "finished"
        self.finished_at = now
        result = to_plain(self.game.result(self.state))
        seats = self.info(now).seats
        self.archive.append(FinishedGame(self.game_no, self.seed, tuple(self.log), seats, result))
        del self.archive[: -self.replays_kept]
        over = GameOver(table=self.id, game_no=self.game_no, version=self.version, result=result)
        return self._to_all(over) + self._changed(now)

    def resync(self, player_id: str, now: float) -> list[Out]:
        """What a player (re)arriving needs: a snapshot, and the result of a finished game."""
        snap = self.snapshot(player_id, now)
        if snap is None:
            return []
        outs: list[Out] = [(player_id, snap)]
        if self.status == "finished" and self.archive:
            last = self.archive[-1]
            over = GameOver(
                table=self.id, game_no=last.game_no, version=self.version, result=last.result
            )
            outs.append((player_id, over))
        return outs

    def snapshot(self, player_id: str, now: float) -> Snapshot | None:
        """The full view of the current game for ``player_id`` (None before the first game)."""
        if self.state is None:
            return None
        seat = self.seat_of(player_id)
        return Snapshot(
            table=self.id,
            game_no=self.game_no,
            version=self.version,
            seat=seat,
            view=to_plain(self.game.view(self.state, seat)),
            timer_s=self.timer_left(now),
        )

    def timer_left(self, now: float) -> float | None:
        """Seconds left on the turn timer of the human to act, if a timer runs."""
        timer = self.setup.options.turn_timer
        if timer is None or self.status != "playing":
            return None
        return max(0.0, round(self.turn_started + timer - now, 3))

    # -- the AI's turns --------------------------------------------------------
    def ai_reason(self, seat: int, now: float) -> ActedBy | None:
        """Why the AI must play ``seat`` now (``ai`` or ``timer``), or None."""
        if self.status != "playing" or seat not in self.game.to_act(self.state):
            return None
        return self._ai_reason(seat, now)

    def _ai_reason(self, seat: int, now: float) -> ActedBy | None:
        """:meth:`ai_reason` of a seat to act in a game under way."""
        slot = self.seats[seat]
        if slot.kind == "ai" or self.covered(slot, now):
            return "ai"
        timer = self.setup.options.turn_timer
        if slot.kind == "human" and timer is not None and now >= self.turn_started + timer:
            return "timer"
        return None

    def peers(self) -> Peers:
        """What the lobby shows of each seat's player (:meth:`info`): the AI's level
        where the AI plays the seat, else ``None`` (engine.policy.Peers)."""
        return tuple(s.level if s.kind == "ai" else None for s in self.seats)

    def ai_due(self, now: float) -> list[AiTurn]:
        """Every turn the AI must play now."""
        if self.status != "playing":
            return []
        turns = []
        for seat in self.game.to_act(self.state):
            by = self._ai_reason(seat, now)
            if by is not None:
                level = self.seats[seat].level or self.setup.strongest
                turns.append(AiTurn(seat, self.version, by, level))
        return turns

    def next_wakeup(self, now: float) -> float | None:
        """The next moment something happens by itself (fill, grace or timer expiry).

        A moment that came since the last :meth:`tick` is still returned (due: the
        actor ticks at once); only those a tick has seen are dropped. A timer may
        fire a little before this core's clock reaches its moment (uvloop's clock
        counts whole milliseconds), and that early tick must not lose the wakeup:
        a quick-play table whose fill was dropped so waited for the next person or
        an away player's grace (issue 53).
        """
        times: list[float] = []
        status = self.status
        if status == "waiting" and self.fill_at is not None:
            times.append(self.fill_at)
        for slot in self.seats:
            if slot.kind == "human" and not slot.connected and slot.away_since is not None:
                times.append(slot.away_since + self.grace)
        if status == "playing":
            timer = self.setup.options.turn_timer
            if timer is not None:
                for seat in self.game.to_act(self.state):
                    if self.seats[seat].kind == "human":
                        times.append(self.turn_started + timer)
        elif status == "waiting":
            abandoned = self.abandoned_until()
            if abandoned is not None:
                times.append(abandoned)
        seen = self._ticked_at
        future = [t for t in times if t > seen]
        if status == "finished":
            closes_at = self.closes_at()  # an AI-only table's close is due even when past
            if closes_at is not None:
                future.append(closes_at)
        return min(future) if future else None

    def tick(self, now: float) -> Effects:
        """Time passed: fill a table whose wait is over; start one that is full;
        tell everybody when the AI starts covering an absent human; close a waiting
        table whose humans have all been gone for ``waiting_grace``."""
        self._ticked_at = now
        abandoned = self.abandoned_until()
        if abandoned is not None and now >= abandoned:
            return Effects(closed=True)
        if self.status == "waiting" and self.fill_at is not None and now >= self.fill_at:
            return self.fill_with_ai(now)
        if self.status == "waiting" and not self.free_seats():
            return self._start(now)
        closes_at = self.closes_at()
        if closes_at is not None and now >= closes_at:
            return Effects(closed=True, close_reason="the AI game is over and nobody plays here")
        covered = {i for i, s in enumerate(self.seats) if self.covered(s, now)}
        if covered != self._covered_seen:
            self._covered_seen = covered
            return Effects(outs=self._changed(now))
        return Effects()

    # -- after the game ------------------------------------------------------
    def ai_only(self) -> bool:
        """Nobody plays here: no seat is held by a human (only the AI, perhaps watched)."""
        return not any(s.kind == "human" for s in self.seats)

    def closes_at(self) -> float | None:
        """When a finished AI-only table closes (``ai_table_linger`` after its game), if it does.

        Such a table never rematches: its watchers see the result, then it
        closes, at once when the last one leaves.
        """
        if self.status != "finished" or self.finished_at is None or not self.ai_only():
            return None
        return self.finished_at + self.ai_table_linger

    def rematch(self, player_id: str, now: float) -> Effects:
        """A vote for another game; it starts once every seated human agrees.

        Only seated players vote; at an AI-only table there is nobody to
        vote, so no rematch (it closes after its game, see :meth:`closes_at`).
        """
        if self.status != "finished":
            raise RequestError(ErrorCode.GAME_IN_PROGRESS, "the game has not ended")
        if self.setup.options.duplicate is not None:  # a board is played once (issue 56)
            raise RequestError(ErrorCode.FORBIDDEN, "a duplicate board is played once")
        seat = self.seat_of(player_id)
        if seat is None:
            if player_id not in self.spectators:
                raise RequestError(ErrorCode.NOT_AT_TABLE, "you are not at this table")
            if self.ai_only():
                raise RequestError(
                    ErrorCode.FORBIDDEN,
                    "nobody plays at this table, so it closes after its game; "
                    "create a new table to watch another",
                )
            raise RequestError(ErrorCode.FORBIDDEN, "only seated players vote for a rematch")
        self.rematch_votes.add(seat)
        started = self._rematch_if_agreed(now)
        # the vote that starts the game is told by the start's own summary (status
        # "playing", no votes left): one table message for the change, not two
        return started if started.started else Effects(outs=self._changed(now))

    def _rematch_if_agreed(self, now: float) -> Effects:
        """Start the next game once every seated human who is here has voted for it.

        A human whose connection is gone does not hold the others up: they keep
        their seat, and the AI plays it for them until they are back, as in any
        game (so a rematch never waits forever for somebody who closed the window).
        """
        present = {i for i, s in enumerate(self.seats) if s.kind == "human" and s.connected}
        if not present or not present <= self.rematch_votes:
            return Effects()
        for i, slot in enumerate(self.seats):
            if slot.kind == "empty" or slot.left:
                self.seats[i] = SeatSlot(kind="ai", level=slot.level or self.setup.strongest)
        return self._start(now)

    @staticmethod
    def _merge(a: Effects, b: Effects) -> Effects:
        return Effects(
            outs=a.outs + b.outs,
            started=b.started or a.started,
            applied=b.applied or a.applied,
            closed=a.closed or b.closed,
            close_reason=b.close_reason or a.close_reason,
        )

    # -- chat ----------------------------------------------------------------
    def chat(self, player_id: str, text: str, now: float) -> Effects:
        """A chat line to everybody at the table (length- and rate-limited)."""
        if not self.is_member(player_id):
            raise RequestError(ErrorCode.NOT_AT_TABLE, "you are not at this table")
        line = self.chat_rules.line(player_id, text, now)
        seat = self.seat_of(player_id)
        name = self.seats[seat].name if seat is not None else self.spectators[player_id]
        bot = seat is not None and self.seats[seat].bot
        msg = ChatLine(
            table=self.id, player_id=player_id, name=name or "", seat=seat, text=line, bot=bot
        )
        self.recent_chat.append(msg)
        return Effects(outs=self._to_all(msg))


def wire_reason(reason: reasons.Reason | None) -> Reason | None:
    """The engine's reason for a refusal as the protocol sends it (codes as lists)."""
    if reason is None:
        return None
    params = {k: list(v) if isinstance(v, tuple) else v for k, v in reason.params.items()}
    return Reason(key=str(reason.why), params=params)
