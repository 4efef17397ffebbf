"""A Cardavia bot in about 20 lines: it takes the biggest capture it can, else any move.

Start a server (``cardavia-server``), then, with the project's Python (where
``cardavia`` is installed): ``.venv/bin/python examples/bot.py ws://127.0.0.1:8765 scopa``

With ``CARDAVIA_BOT_TOKEN`` set to one of a bot account's API tokens (docs/protocol.md,
"Bots"), it plays as that bot, shown as a bot at the table; else as a guest.
"""

import asyncio
import os
import random
import sys

from client_cli.client import Client, play_table


def choose(view: dict) -> dict:
    """Pick one of the legal moves the server sent in this seat's view."""
    legal = view["legal"]
    most = max(len(move.get("capture", [])) for move in legal)
    return random.choice([move for move in legal if len(move.get("capture", [])) == most])


async def main(url: str, game: str) -> None:
    token = os.environ.get("CARDAVIA_BOT_TOKEN")  # a bot account's API token, if any
    async with await Client.connect(url, "capture-bot", api_token=token) as client:
        joined = await client.quick_play(game)  # join a waiting table, or open one
        print(f"playing {game} at table {joined.table.id}, seat {joined.seat}, as {client.name}")
        result = await play_table(client, joined.table.id, choose)  # until the game ends
        print(f"scores {result['scores']}, winners {result['winners']}")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "scopa"))
