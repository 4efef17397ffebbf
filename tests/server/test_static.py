"""The browser client's files over HTTP and the JSON text subprotocol."""

from __future__ import annotations

import asyncio
import http.client
import json
from pathlib import Path
from typing import Any

import msgpack  # type: ignore[import-untyped]
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from protocol.base import PROTOCOL_VERSION
from protocol.codec import decode_server_json
from server.app import CardaviaServer, running_server
from server.net import static
from server.net.static import resolve
from tests.server.helpers import FAST


def _get(server: CardaviaServer, path: str, **headers: str) -> tuple[int, dict[str, str], bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
    conn.putrequest("GET", path, skip_accept_encoding=True)
    for k, v in headers.items():
        conn.putheader(k, v)
    conn.endheaders()
    resp = conn.getresponse()
    body = resp.read()
    conn.close()
    return resp.status, {k.lower(): v for k, v in resp.getheaders()}, body


async def _fetch(server: CardaviaServer, path: str, **h: str) -> tuple[int, dict[str, str], bytes]:
    return await asyncio.to_thread(_get, server, path, **h)


async def test_page_and_files_are_served_with_types_and_cache_headers() -> None:
    async with running_server(FAST) as server:
        status, headers, body = await _fetch(server, "/")
        assert status == 200 and headers["content-type"] == "text/html; charset=utf-8"
        assert b"<html" in body and b"app.js" in body
        assert headers["cache-control"] == "no-cache" and "etag" in headers
        assert "default-src 'self'" in headers["content-security-policy"]
        status, headers, body = await _fetch(server, "/static/app.js")
        assert status == 200 and headers["content-type"].startswith("text/javascript")
        status, headers, _ = await _fetch(server, "/static/style.css")
        assert status == 200 and headers["content-type"].startswith("text/css")
        status, headers, _ = await _fetch(server, "/static/i18n/en.json")
        assert status == 200 and headers["content-type"] == "application/json"
        etag = headers["etag"]
        status, _, body = await _fetch(server, "/static/i18n/en.json", **{"If-None-Match": etag})
        assert status == 304 and body == b""
        status, _, _ = await _fetch(server, "/static/missing.js")
        assert status == 404


async def test_the_favicon_is_served_as_the_page_links_it() -> None:
    """Browsers ask for /favicon.ico on every load: an icon, not a 426 or 404 in the console."""
    async with running_server(FAST) as server:
        status, headers, body = await _fetch(server, "/favicon.ico")
        assert status == 200 and headers["content-type"] == "image/svg+xml"
        assert body.startswith(b"<svg") and len(body) < 2048
        _, _, page = await _fetch(server, "/")
        assert b'<link rel="icon" href="/favicon.ico"' in page


async def test_the_rules_are_served_per_game_in_english_where_no_translation_exists(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shipped = (static.RULES / "doudizhu.md").read_bytes()
    async with running_server(FAST) as server:
        for game in ("scopa", "cicera", "doudizhu", "schafkopf", "cards"):
            status, headers, body = await _fetch(server, f"/rules/en/{game}.md")
            assert status == 200 and headers["content-type"] == "text/markdown; charset=utf-8"
            assert body == (static.RULES / f"{game}.md").read_bytes()
            assert headers["content-language"] == "en"
        status, headers, body = await _fetch(server, "/rules/de/doudizhu.md")
        assert (status, headers["content-language"], body) == (200, "en", shipped)
        for path in ("/rules/en/README.md", "/rules/en/poker.md", "/rules/../app.md"):
            assert (await _fetch(server, path))[0] == 404
    (tmp_path / "de").mkdir()
    (tmp_path / "scopa.md").write_text("# Scopa\n")
    (tmp_path / "de" / "scopa.md").write_text("# Scopa auf Deutsch\n")
    monkeypatch.setattr(static, "RULES", tmp_path)
    assert static.resolve("/rules/de/scopa.md") == tmp_path / "de" / "scopa.md"
    assert static.resolve("/rules/it/scopa.md") == tmp_path / "scopa.md"
    assert static.resolve("/rules/de/cicera.md") is None


@pytest.mark.parametrize(
    "path",
    [
        "/static/../server/app.py",
        "/static/..%2fserver%2fapp.py",
        "/static/%2e%2e/pyproject.toml",
        "/static/__init__.py",
        "/static/.hidden.js",
        "/static/i18n/../../server/static.py",
        "/static//etc/passwd",
        "/static/a/b/c.js",
        "/static/..\\app.js",
        "/rules/en/../../server/app.md",
        "/rules/english/scopa.md",
        "/rules/en/scopa.md.py",
    ],
)
async def test_no_file_outside_the_client_folder_is_served(path: str) -> None:
    assert resolve(path) is None
    async with running_server(FAST) as server:
        status, _, body = await _fetch(server, path)
        assert status in (400, 404)
        assert b"import" not in body and b"root:" not in body


async def _session(url: str, subprotocol: str | None) -> list[Any]:
    """Open a session, quick-play Scopa, return the messages up to the first update."""
    protocols: Any = None if subprotocol is None else [subprotocol]
    got: list[Any] = []
    async with connect(url, subprotocols=protocols, compression=None) as ws:
        assert ws.subprotocol == subprotocol
        hello = {"type": "hello", "id": 1, "version": PROTOCOL_VERSION, "name": "Ann"}
        requests = [hello, {"type": "list_games", "id": 2}, {"type": "bogus", "id": 3}, {}]
        for req in requests:
            if subprotocol == "cardavia.json":
                await ws.send(json.dumps(req))
            else:
                await ws.send(msgpack.packb(req))
        for _ in range(4):
            frame = await asyncio.wait_for(ws.recv(), 5)
            if subprotocol == "cardavia.json":
                assert isinstance(frame, str)
                decode_server_json(frame)  # a valid server message
                got.append(json.loads(frame))
            else:
                assert isinstance(frame, bytes)
                got.append(msgpack.unpackb(frame))
    return got


async def test_json_client_gets_the_same_messages_as_a_msgpack_client() -> None:
    async with running_server(FAST) as server:
        as_json = await _session(server.url, "cardavia.json")
        as_msgpack = await _session(server.url, "cardavia.msgpack")
        as_default = await _session(server.url, None)
    for got in (as_json, as_msgpack, as_default):
        assert [m["type"] for m in got] == ["welcome", "games", "error", "error"]
        assert got[2]["code"] == "unknown_type" and got[2]["ref"] == 3
        assert got[3]["code"] == "bad_message"
    strip = [{k: v for k, v in m.items() if k not in ("player_id", "token")} for m in as_json]
    for other in (as_msgpack, as_default):
        assert strip == [
            {k: v for k, v in m.items() if k not in ("player_id", "token")} for m in other
        ]


async def test_json_connection_refuses_binary_and_bad_json() -> None:
    async with (
        running_server(FAST) as server,
        connect(server.url, subprotocols=["cardavia.json"]) as ws,  # type: ignore[list-item]
    ):
        for bad in (
            b"\x81\xa4type\xa5hello",
            "{not json",
            "[1, 2]",
            '{"type":"ping","id":NaN}',
        ):
            await ws.send(bad)
            reply = json.loads(await asyncio.wait_for(ws.recv(), 5))
            assert reply["type"] == "error" and reply["code"] == "bad_message"
        await ws.send(json.dumps({"type": "ping", "id": 7}))
        assert json.loads(await asyncio.wait_for(ws.recv(), 5)) == {"type": "pong", "ref": 7}


async def test_unknown_subprotocol_only_is_refused() -> None:
    async with running_server(FAST) as server:
        with pytest.raises(InvalidStatus):
            async with connect(server.url, subprotocols=["chat"]):  # type: ignore[list-item]
                pass
