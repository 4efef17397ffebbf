"""Cardavia's asyncio WebSocket server: sessions, lobby, one actor per table.

Start it with ``cardavia-server`` (:mod:`server.main`) or embed it with
:func:`server.app.running_server`.  How it is built (its rooms, the path of a move
from socket to sockets): docs/architecture.md.
"""
