"""The play prompt's moderation commands (mute, unmute, block, unblock, kick, report)
against a real server, and their strings in every language."""

from __future__ import annotations

import io
import json
from pathlib import Path

from client_cli.client import Client
from client_cli.play_session import PlaySession
from client_cli.terminal import Screen
from protocol import server_messages as sm
from protocol.models import TableOptions
from server.app import running_server
from tests.server.helpers import FAST

I18N = Path(__file__).resolve().parents[2] / "client_cli" / "i18n"
KEYS = (
    "help_moderation", "no_player", "report_usage", "reported", "mute_done", "unmute_done",
    "block_done", "unblock_done", "kick_done", "kicked",
)  # fmt: skip


def test_every_language_has_the_moderation_strings() -> None:
    for path in sorted(I18N.glob("*.json")):
        session = json.loads(path.read_text(encoding="utf-8"))["session"]
        missing = [k for k in KEYS if not session.get(k)]
        assert missing == [], path.name
        assert "{name}" in session["no_player"] and "{name}" in session["kick_done"], path.name


async def test_the_prompt_mutes_blocks_reports_and_kicks_by_name() -> None:
    async with (
        running_server(FAST) as server,
        await Client.connect(server.url, "Ann") as ann,
        await Client.connect(server.url, "Bo") as bo,
    ):
        joined = await ann.create_table("cicera", TableOptions(seat=0))
        out = io.StringIO()
        session = PlaySession(ann, joined, Screen(out))
        table = joined.table.id
        bo_joined = await bo.join(table)
        bo_out = io.StringIO()
        bo_session = PlaySession(bo, bo_joined, Screen(bo_out))
        changed = await ann.wait_for(
            lambda m: isinstance(m, sm.TableChanged) and any(s.name == "Bo" for s in m.table.seats)
        )
        session.on_message(changed)
        me = server.sessions.get(ann.player_id)
        assert me is not None

        await session.on_line("mute bo")
        assert "Bo is muted" in out.getvalue()  # as the table shows the name
        assert me.relations.muted == {bo.player_id}
        await session.on_line("unmute Bo")
        await session.on_line("block Bo")
        await session.on_line("unblock Bo")
        assert me.relations.muted == frozenset() and me.relations.blocked == frozenset()
        await session.on_line("report Bo")
        assert "Type report NAME REASON." in out.getvalue()
        await session.on_line("report Nobody rude")
        assert "Nobody called Nobody is at this table." in out.getvalue()
        await session.on_line("report Bo rude words")
        assert "Your report about Bo was sent" in out.getvalue()
        (found,) = await server.moderation.reports()
        assert found.report.target_player == bo.player_id and found.report.reason == "rude words"

        async with await Client.connect(server.url, "Cy") as cy:  # a spectator: known by chat
            await cy.spectate(table)
            await cy.chat(table, "hello")
            said = await ann.wait_for(lambda m: isinstance(m, sm.ChatLine) and m.name == "Cy")
            session.on_message(said)
            await session.on_line("mute CY")
            assert "Cy is muted" in out.getvalue() and me.relations.muted == {cy.player_id}

        await bo_session.on_line("kick Ann")  # only the owner may
        assert "Refused" in bo_out.getvalue()
        await session.on_line("kick Bo")
        assert "Bo was removed from the table." in out.getvalue()
        kicked = await bo.wait_for(lambda m: isinstance(m, sm.Kicked))
        bo_session.on_message(kicked)
        assert "The table's owner removed you" in bo_out.getvalue()
        assert bo_session.done == 0
        await session.on_line("help")
        assert "report NAME REASON" in out.getvalue()
