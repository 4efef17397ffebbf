"""Table commands: one class each, made from a client's request in one place, and a
command the actor does not handle is a type error, found before anything runs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any, get_args

import pytest

from protocol import client_messages as cm
from server.players.sessions import Player
from server.tables import commands as tc

ROOT = Path(__file__).resolve().parents[2]

PLAYER = Player(player_id="p1", name="Ann", token="t")


@pytest.mark.parametrize(
    ("msg", "kind", "fields"),
    [
        (
            cm.Act(id=1, table="t", seat=1, version=4, action={"type": "pass"}),
            tc.Move,
            {"seat": 1, "version": 4, "action": {"type": "pass"}},
        ),
        (cm.Rematch(id=2, table="t"), tc.Rematch, {}),
        (cm.Leave(id=3, table="t"), tc.Leave, {}),
        (cm.Start(id=4, table="t"), tc.Start, {}),
        (cm.Chat(id=5, table="t", text="hi"), tc.Chat, {"text": "hi"}),
        (cm.GetReplay(id=6, table="t", game_no=2), tc.GetReplay, {"game_no": 2}),
    ],
)
def test_each_table_request_becomes_its_command(
    msg: Any, kind: type, fields: dict[str, Any]
) -> None:
    command = tc.command_of(PLAYER, msg)
    assert type(command) is kind
    assert command.player is PLAYER and command.ref == msg.id
    assert {name: getattr(command, name) for name in fields} == fields


def test_every_table_request_class_is_listed_once() -> None:
    assert set(tc.TABLE_REQUESTS) == set(get_args(tc.TableRequest))
    assert set(tc.REQUESTS) == set(get_args(tc.Request))
    assert set(tc.PRESENCE) == set(get_args(tc.Presence))
    kinds = [c.kind for c in get_args(tc.TableCommand)]
    assert len(kinds) == len(set(kinds))  # the logs tell them apart


def test_the_presence_commands_travel_between_processes_by_kind() -> None:
    for presence in tc.PRESENCE:
        assert tc.PRESENCE_BY_KIND[presence.kind] is presence


_LOST = """            elif isinstance(command, Lost):
                self._lose("another process owns the table now")
"""
_GET_REPLAY = """    if isinstance(msg, cm.GetReplay):
        return GetReplay(player, msg.id, msg.game_no)
"""
_MISUSE = """

def _submit_a_string(actor: TableActor) -> None:
    actor.submit("act")  # a command is a value of its class, not a name
"""


@pytest.mark.heavy
def test_a_command_left_out_of_a_dispatch_is_a_type_error(tmp_path: Path) -> None:
    """The type checker holds each dispatch to every command class: the actor's, left
    without the branch for ``Lost``, and :func:`command_of`, without ``GetReplay``,
    are errors; so is submitting what is not a command."""
    actor, commands = ROOT / "server/tables/actor.py", ROOT / "server/tables/commands.py"
    actor_text, commands_text = actor.read_text(), commands.read_text()
    assert _LOST in actor_text and _GET_REPLAY in commands_text
    shadow_actor, shadow_commands = tmp_path / "actor.py", tmp_path / "commands.py"
    shadow_actor.write_text(actor_text.replace(_LOST, "") + _MISUSE)
    shadow_commands.write_text(commands_text.replace(_GET_REPLAY, ""))
    argv = [sys.executable, "-m", "mypy", "--no-error-summary"]
    argv += ["--shadow-file", str(actor), str(shadow_actor)]
    argv += ["--shadow-file", str(commands), str(shadow_commands), str(actor), str(commands)]
    done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=300)
    out = done.stdout
    assert done.returncode == 1, out + done.stderr
    assert 'Argument 1 to "unhandled" has incompatible type "Lost"; expected "Never"' in out
    assert 'Argument 1 to "unhandled" has incompatible type "GetReplay"; expected "Never"' in out
    assert 'Argument 1 to "submit" of "TableActor" has incompatible type "str"' in out
    assert out.count("error:") == 3, out  # nothing else: the files as they are check clean
