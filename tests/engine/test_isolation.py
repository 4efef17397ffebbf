"""docs/architecture.md, Layers: ``engine`` imports with the I/O libraries unavailable."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = textwrap.dedent(
    """
    import importlib, pkgutil, random, sys

    BLOCKED = {"asyncio", "pydantic", "msgpack", "redis", "websockets", "structlog", "numpy"}

    class Blocker:
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in BLOCKED:
                raise ImportError(f"{name} is blocked for the engine")
            return None

    for name in list(sys.modules):
        if name.split(".")[0] in BLOCKED:
            del sys.modules[name]
    sys.meta_path.insert(0, Blocker())

    import engine
    for mod in pkgutil.walk_packages(engine.__path__, "engine."):
        importlib.import_module(mod.name)
    from engine.registry import GAMES
    for game_id, game in GAMES.items():
        state = game.new_state(game.options(), 1)
        rng = random.Random(1)
        while not game.is_over(state):
            seat = game.to_act(state)[0]
            legal = game.legal_actions(state, seat)
            state = game.apply(state, seat, legal[rng.randrange(len(legal))]).state
        assert game.result(state) is not None
    leaked = sorted(m for m in sys.modules if m.split(".")[0] in BLOCKED)
    assert not leaked, leaked
    print("ok", sorted(GAMES))
    """
)


def test_engine_imports_and_plays_without_io_libraries():
    out = subprocess.run(
        [sys.executable, "-c", SCRIPT], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("ok")


def test_the_blocker_really_blocks():
    probe = SCRIPT.split("import engine")[0] + "import msgpack\n"
    out = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode != 0
    assert "blocked for the engine" in out.stderr
