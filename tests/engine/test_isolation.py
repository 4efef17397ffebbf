"""docs/architecture.md, Layers: ``engine`` imports with the I/O libraries unavailable."""

from __future__ import annotations

import ast
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


# -- the rules never import their AI (issue 52: AI beside the rules) ------------------

GAME_PACKAGES = ("cicera", "doudizhu", "schafkopf", "scopa")
AI_MODULES = ("ai", "policies")
"""In ``engine/<game>/``: the AI package and the table of levels; the rest are the rules."""
AI_OF_THE_ENGINE = ("engine.policy", "engine.search", "engine.registry")


def _rules_modules(game: str) -> list[Path]:
    """The modules of ``engine/<game>/`` outside its AI: ``__init__``, game, state, rules, …"""
    return [p for p in sorted((ROOT / "engine" / game).glob("*.py")) if p.stem not in AI_MODULES]


def _imported(path: Path) -> set[str]:
    """Every module ``path`` imports, at the top or inside a function (absolute names)."""
    package = "engine." + path.parent.name
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: from the game's package
                base = ".".join([package, *([base] if base else [])])
            names.add(base)
            names.update(f"{base}.{alias.name}" for alias in node.names)
    return names


def _is_ai(name: str) -> bool:
    parts = name.split(".")
    in_game_ai = (
        len(parts) >= 3
        and parts[0] == "engine"
        and parts[1] in GAME_PACKAGES
        and parts[2] in AI_MODULES
    )
    return in_game_ai or any(name == m or name.startswith(m + ".") for m in AI_OF_THE_ENGINE)


def test_the_rules_of_every_game_never_import_an_ai() -> None:
    for game in GAME_PACKAGES:
        modules = _rules_modules(game)
        assert {"game", "state", "rules"} <= {m.stem for m in modules}
        for path in modules:
            ai = sorted(n for n in _imported(path) if _is_ai(n))
            assert not ai, f"{path.relative_to(ROOT)} imports {ai}"


def test_the_import_check_sees_an_ai_import(tmp_path: Path) -> None:
    rules = tmp_path / "doudizhu" / "rules.py"
    rules.parent.mkdir()
    rules.write_text(
        "def f():\n    from .ai.normal import NormalPolicy\n    from . import policies\n"
    )
    assert {n for n in _imported(rules) if _is_ai(n)} == {
        "engine.doudizhu.ai.normal",
        "engine.doudizhu.ai.normal.NormalPolicy",
        "engine.doudizhu.policies",
    }
    assert not _is_ai("engine.doudizhu.rules") and not _is_ai("engine.cards")


AI_FREE = textwrap.dedent(
    """
    import importlib, sys
    for game in {games!r}:
        for module in {modules!r}:
            importlib.import_module(f"engine.{{game}}.{{module}}")
    def is_ai(name):
        parts = name.split(".")
        in_game = parts[0] == "engine" and parts[2:3] in (["ai"], ["policies"])
        return in_game or name in {engine_ai!r}
    print(sorted(filter(is_ai, sys.modules)))
    """
)


def _loaded_ai(modules: tuple[str, ...]) -> str:
    """The AI modules loaded once ``modules`` of every game are (a fresh interpreter)."""
    script = AI_FREE.format(games=GAME_PACKAGES, modules=modules, engine_ai=AI_OF_THE_ENGINE)
    out = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


def test_loading_a_games_rules_loads_no_ai() -> None:
    assert _loaded_ai(("game", "state", "rules")) == "[]"
    # the check sees the AI where it is loaded: the table of levels loads the ai package
    assert "'engine.scopa.ai.search'" in _loaded_ai(("game", "policies"))
