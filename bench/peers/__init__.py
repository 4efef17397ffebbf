"""Peer engines measured in the same run as ours (optional dependencies).

Each peer module exposes ``measure(seconds: float, seed: int) -> dict`` with
``deals_per_s`` and ``decisions_per_s`` for uniformly random playouts.
"""

from __future__ import annotations

PEERS: dict[str, str] = {
    "openspiel": "bench.peers.openspiel_doudizhu",
    "rlcard": "bench.peers.rlcard_doudizhu",
}
