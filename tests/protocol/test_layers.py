"""The layers point one way: protocol/ needs neither server/, client_cli/ nor websockets."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

BLOCK = """
import sys
class Block:
    def __init__(self, names): self.names = names
    def find_spec(self, name, path=None, target=None):
        if name.split('.')[0] in self.names:
            raise ImportError(name + ' is blocked in this layer')
        return None
sys.meta_path.insert(0, Block({blocked!r}))
import {module}
"""


def _imports_cleanly(module: str, blocked: set[str]) -> None:
    code = BLOCK.format(blocked=blocked, module=module)
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


def test_protocol_imports_without_server_client_or_sockets() -> None:
    _imports_cleanly(
        "protocol, protocol.schema", {"server", "client_cli", "websockets", "redis", "structlog"}
    )


def test_server_does_not_import_the_client() -> None:
    _imports_cleanly("server.app, server.main", {"client_cli"})
