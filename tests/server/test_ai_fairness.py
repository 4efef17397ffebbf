"""A human's moves are served while all-AI tables run flat out (bench/ai_fairness.py measures).

Not a timing benchmark: the ratio is generous (the machine is shared), it
only catches AI work crowding out the humans' moves on the event loop.
"""

from __future__ import annotations

from bench.ai_fairness import AiLoad, HumanPair, percentile
from server.app import running_server
from tests.server.helpers import FAST

TABLES = 6


async def test_a_humans_moves_are_served_while_ai_tables_run() -> None:
    config = FAST.replace(
        ai_mode="process",  # the default
        ai_only_moves_per_s=100.0,  # the default
        ai_think=0.02,
        max_ai_tables_per_player=TABLES,
        max_watched_tables_per_session=TABLES + 1,
        max_created_tables_per_session=TABLES + 1,
    )
    async with running_server(config) as srv:
        pair = HumanPair(srv.url)
        await pair.open()
        load = AiLoad(srv.url, TABLES)
        try:
            await pair.play(0.3, 0.005)  # warm up
            idle = await pair.play(1.5, 0.005)
            await load.start()
            loaded = await pair.play(1.5, 0.005)
            moves = load.moves
        finally:
            await load.stop()
            await pair.close()
    assert len(idle.act) >= 20 and len(loaded.act) >= 20
    assert moves >= 20  # the AI tables did run meanwhile
    idle_p99 = percentile(idle.act, 0.99)
    loaded_p99 = percentile(loaded.act, 0.99)
    assert loaded_p99 < max(10 * idle_p99, 0.2), (idle_p99, loaded_p99)
