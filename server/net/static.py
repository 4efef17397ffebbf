"""The browser client's files and the JSON text subprotocol.

The page (``client_web/``, shipped in the package) is served on the
WebSocket's port: ``GET /`` is ``index.html``, ``GET /static/NAME`` a file of
the folder, ``GET /favicon.ico`` its icon (browsers ask for it on every load),
``GET /rules/LANG/TOPIC.md`` the players' rules that ``cardavia rules`` prints
(``client_cli/rules/``), in ``LANG`` where a translation exists
(``client_cli/rules/LANG/TOPIC.md``), else in English.

Browsers connect with the ``cardavia.json`` subprotocol: the same
messages as JSON text frames instead of msgpack binary frames.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from http import HTTPStatus
from pathlib import Path

from websockets.asyncio.server import ServerConnection
from websockets.datastructures import Headers
from websockets.exceptions import NegotiationError
from websockets.http11 import Request, Response
from websockets.typing import Subprotocol

import client_web

MSGPACK_SUBPROTOCOL = Subprotocol("cardavia.msgpack")
JSON_SUBPROTOCOL = Subprotocol("cardavia.json")
SUBPROTOCOLS: tuple[Subprotocol, ...] = (MSGPACK_SUBPROTOCOL, JSON_SUBPROTOCOL)
"""What the server speaks; a client offering none gets msgpack."""

ROOT = Path(client_web.__file__).resolve().parent
"""The folder of the browser client's files."""

RULES = ROOT.parent / "client_cli" / "rules"
"""The players' rules (``cardavia rules``): English here, a translation in ``LANG/``.
Found beside the page's folder (one distribution ships both packages), not by
importing the client: the server never imports ``client_cli``."""

FAVICON = ROOT / "favicon.svg"
"""The page's icon, also served at ``/favicon.ico`` (asked for by every browser)."""

CONTENT_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".json": "application/json",
    ".svg": "image/svg+xml",
    ".md": "text/markdown; charset=utf-8",
}
_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}")
_RULES_PATH = re.compile(r"/rules/(?P<lang>[a-z]{2})/(?P<topic>[a-z]{1,16})\.md")
_POLICY = (
    "default-src 'self'; connect-src 'self' ws: wss:; img-src 'self' data:; "
    "style-src 'self'; script-src 'self'; object-src 'none'; base-uri 'none'; "
    "frame-ancestors 'none'"
)


def select_subprotocol(
    connection: ServerConnection, offered: Sequence[Subprotocol]
) -> Subprotocol | None:
    """The first subprotocol the client offers that the server speaks; none (msgpack)
    when it offers none. A client offering only unknown ones is refused (websockets
    answers 400)."""
    if not offered:
        return None
    for name in offered:
        if name in SUBPROTOCOLS:
            return name
    raise NegotiationError(f"unsupported subprotocols {', '.join(offered)}; use cardavia.json")


def is_json(subprotocol: str | None) -> bool:
    """Whether a connection with this subprotocol speaks JSON text frames."""
    return subprotocol == JSON_SUBPROTOCOL


@dataclass(frozen=True, slots=True)
class StaticFile:
    """A file of the page, read once."""

    body: bytes
    content_type: str
    etag: str


_cache: dict[Path, StaticFile] = {}


def _load(path: Path) -> StaticFile | None:
    found = _cache.get(path)
    if found is None:
        if not path.is_file():
            return None
        body = path.read_bytes()
        etag = '"' + hashlib.sha256(body).hexdigest()[:20] + '"'
        found = StaticFile(body, CONTENT_TYPES[path.suffix], etag)
        _cache[path] = found
    return found


def resolve(path: str) -> Path | None:
    """The file for a request path (``/`` or ``/static/...``), or ``None``.

    Only plain names of known types inside :data:`ROOT`, one folder deep at
    most: ``..``, dot files, back slashes and encoded characters never match.
    """
    if path in ("/", "/index.html"):
        return ROOT / "index.html"
    if path == "/favicon.ico":
        return FAVICON
    rules = _RULES_PATH.fullmatch(path)
    if rules is not None:
        return rules_file(rules["lang"], rules["topic"])
    if not path.startswith("/static/"):
        return None
    parts = path[len("/static/") :].split("/")
    if not 1 <= len(parts) <= 2 or not all(_NAME.fullmatch(p) for p in parts):
        return None
    if any(p.startswith(".") or ".." in p for p in parts):
        return None
    target = ROOT.joinpath(*parts).resolve()
    if not target.is_relative_to(ROOT) or target.suffix not in CONTENT_TYPES:
        return None
    return target


def rules_file(lang: str, topic: str) -> Path | None:
    """The rules of ``topic`` (a game id or ``cards``) in ``lang``, else in English;
    ``None`` for a topic without rules. Names come from the folder's own listing,
    never from joining the request's text to a path."""
    english = {p.stem: p for p in RULES.glob("*.md")}
    if topic not in english:
        return None
    translated = {p.stem: p for p in (RULES / lang).glob("*.md")} if lang != "en" else {}
    return translated.get(topic, english[topic])


def response(request: Request) -> Response | None:
    """The answer to a plain HTTP request for the page or its files; ``None`` for
    anything else (WebSocket handshakes included, whatever their path)."""
    if request.headers.get("Upgrade", "").lower() == "websocket":
        return None
    path = request.path.split("?")[0].split("#")[0]
    if path not in ("/", "/index.html", "/favicon.ico") and not path.startswith(
        ("/static/", "/rules/")
    ):
        return None
    target = resolve(path)
    found = None if target is None else _load(target)
    if found is None:
        headers = Headers([("Content-Type", "text/plain; charset=utf-8")])
        return Response(HTTPStatus.NOT_FOUND.value, "Not Found", headers, b"not found\n")
    headers = Headers(
        [
            ("Cache-Control", "no-cache"),
            ("ETag", found.etag),
            ("X-Content-Type-Options", "nosniff"),
        ]
    )
    if target is not None and target.suffix == ".md":  # which language came: the page marks it
        headers["Content-Language"] = "en" if target.parent == RULES else target.parent.name
    if target is not None and target.suffix == ".html":
        headers["Content-Security-Policy"] = _POLICY
        headers["Referrer-Policy"] = "no-referrer"
    if request.headers.get("If-None-Match") == found.etag:
        return Response(HTTPStatus.NOT_MODIFIED.value, "Not Modified", headers, b"")
    headers["Content-Type"] = found.content_type
    return Response(HTTPStatus.OK.value, "OK", headers, found.body)
