"""TLS: --tls-cert/--tls-key serve wss:// and https://; clients trust a CA file."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import ssl
import subprocess
import sys
import urllib.request
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import trustme
from websockets.exceptions import InvalidHandshake

from client_cli.client import Client
from client_cli.common import CliError, connect
from server.app import CardaviaServer, running_server
from server.config import load_config
from tests.server.helpers import FAST

ROOT = Path(__file__).resolve().parents[2]


@dataclasses.dataclass(frozen=True)
class Pems:
    ca: str
    cert: str
    key: str


@pytest.fixture(scope="module")
def pems(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Pems]:
    """A throwaway CA and a certificate for 127.0.0.1 it signed, as PEM files."""
    where = tmp_path_factory.mktemp("tls")
    ca = trustme.CA()
    issued = ca.issue_cert("127.0.0.1", "localhost")
    ca.cert_pem.write_to_path(str(where / "ca.pem"))
    issued.private_key_pem.write_to_path(str(where / "key.pem"))
    with open(where / "cert.pem", "wb") as out:
        for blob in issued.cert_chain_pems:
            out.write(blob.bytes())
    yield Pems(str(where / "ca.pem"), str(where / "cert.pem"), str(where / "key.pem"))


@pytest.fixture
async def tls_server(pems: Pems) -> AsyncIterator[CardaviaServer]:
    config = FAST.replace(tls_cert=pems.cert, tls_key=pems.key)
    async with running_server(config) as srv:
        yield srv


async def test_a_client_says_hello_over_wss(tls_server: CardaviaServer, pems: Pems) -> None:
    assert tls_server.url.startswith("wss://127.0.0.1:")
    client = await Client.connect(tls_server.url, "secure", ca_file=pems.ca)
    try:
        assert client.player_id and client.token
        joined = await client.create_table("scopa", {"seat": 0, "ai": [{"seat": 1}]})
        assert joined.seat == 0
        await client.ping()
    finally:
        await client.close()


async def test_healthz_over_https(tls_server: CardaviaServer, pems: Pems) -> None:
    context = ssl.create_default_context(cafile=pems.ca)
    url = f"https://127.0.0.1:{tls_server.port}/healthz"

    def get() -> dict[str, object]:
        with urllib.request.urlopen(url, timeout=5, context=context) as reply:
            return json.loads(reply.read())  # type: ignore[no-any-return]

    assert (await asyncio.to_thread(get))["status"] == "ok"


async def test_an_untrusted_certificate_is_a_clear_cli_error(tls_server: CardaviaServer) -> None:
    with pytest.raises(CliError) as err:
        await connect(tls_server.url, "nobody", timeout=5)
    assert "TLS with wss://" in str(err.value) and "--ca-file" in str(err.value)
    assert err.value.status == 3


async def test_plain_ws_clients_are_not_served_by_a_tls_server(
    tls_server: CardaviaServer,
) -> None:
    plain = tls_server.url.replace("wss://", "ws://")
    with pytest.raises(InvalidHandshake):  # the server answers TLS, not HTTP
        await Client.connect(plain, "clear", open_timeout=3)


async def test_the_lobby_command_works_over_wss(tls_server: CardaviaServer, pems: Pems) -> None:
    args = ["lobby", "--url", tls_server.url, "--ca-file", pems.ca, "--json", "--games"]
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "client_cli.main",
        *args,
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(proc.communicate(), 60)
    assert proc.returncode == 0, err.decode()
    listed = json.loads(out)
    assert {g["id"] for g in listed["games"]} == {"scopa", "cicera", "doudizhu", "schafkopf"}


def test_tls_settings_are_checked(pems: Pems) -> None:
    config = load_config(["--tls-cert", pems.cert, "--tls-key", pems.key], env={})
    assert (config.tls_cert, config.tls_key) == (pems.cert, pems.key)
    with pytest.raises(ValueError, match="give both or neither"):
        load_config(["--tls-cert", pems.cert], env={})
    with pytest.raises(ValueError, match="no such file"):
        load_config(["--tls-cert", pems.cert, "--tls-key", pems.cert + ".missing"], env={})
    garbage = Path(pems.key).with_name("garbage.pem")
    garbage.write_text("not a certificate\n")
    with pytest.raises(ValueError, match="cannot load"):
        load_config(["--tls-cert", str(garbage), "--tls-key", pems.key], env={})
    with pytest.raises(ValueError, match="cannot load"):
        load_config(["--tls-cert", pems.cert, "--tls-key", pems.ca], env={})  # not its key
    with pytest.raises(ValueError, match="shutdown_drain"):
        load_config(["--shutdown-drain", "-1"], env={})
