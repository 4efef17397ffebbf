"""The tests' server processes (tests/server/redis_fixture.py): a port picked free can
be taken by another test's server before a process binds it; the process then starts
on another port instead of passing for the server that answers there."""

from __future__ import annotations

from tests.server.redis_fixture import RedisServer, ServerProcess


def test_a_server_whose_port_was_taken_starts_on_another(
    redis_server: RedisServer, servers: list[ServerProcess]
) -> None:
    first = ServerProcess(redis_server.url)
    servers.append(first)
    first.start()
    second = ServerProcess(redis_server.url)
    servers.append(second)
    second.port = first.port  # taken meanwhile, as by another test's server
    second.start()
    assert second.port != first.port
    assert second.proc is not None and first.proc is not None
    assert (second.health() or {}).get("pid") == second.proc.pid
    assert (first.health() or {}).get("pid") == first.proc.pid
