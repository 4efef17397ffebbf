"""The compiled build (``python -m compiled.build``, mypyc): it loads, decides exactly as
plain Python does, refuses malformed input the same way, passes the engine's conformance
suite and the server's socket tests, serves games through the fuzzer and the leak audit
as plain Python does, and a stale library is caught.

The sources are compiled once per run, into a copy (the ``built`` fixture), and every
check here runs against that copy: what the Docker image ships is what is tested."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

import server.main
from compiled import runtime
from compiled.modules import COMPILED, GENERATED, HOT_PATH, module_name
from compiled.runtime import compiled_files, stale

# minutes: run first (tests/conftest.py); the first test also pays for compiling the copy
# (about three minutes on two busy cores), past the suite's per-test 240 s
pytestmark = [pytest.mark.heavy, pytest.mark.timeout(900)]

ROOT = Path(__file__).resolve().parents[2]

PLAY = textwrap.dedent(
    """
    import json, random
    from engine.codec import to_plain
    from compiled.runtime import loaded
    from engine.doudizhu.ai.normal import NormalPolicy
    from engine.doudizhu.ai.search import HardPolicy
    from engine.doudizhu.state import DoudizhuOptions
    from engine.game import Budget, IllegalAction
    from engine.registry import get_game

    game = get_game("doudizhu")
    options = DoudizhuOptions()
    hard, normal = HardPolicy(), NormalPolicy()
    budget = Budget(iterations=40, seconds=None)
    choices = []
    for deal in range(4):
        state = game.new_state(options, 500 + deal)
        rng = random.Random(deal)
        while not game.is_over(state):
            seat = game.to_act(state)[0]
            view = game.view(state, seat)
            legal = game.legal_actions(state, seat)
            if len(legal) > 1 and (seat == deal % 3 or view.phase == "bidding"):
                action = hard.choose(view, legal, random.Random(len(choices)), budget)
                choices.append([view.phase, to_plain(action)])
            else:
                action = normal.choose(view, legal, rng)
            state = game.apply(state, seat, action).state

    state = game.new_state(options, 7)
    while state.landlord is None:
        seat = game.to_act(state)[0]
        state = game.apply(state, seat, game.legal_actions(state, seat)[-1]).state
    seat = game.to_act(state)[0]
    refusals = []
    for data in [
        {"type": "play", "cards": [], "combo": "solo"},
        {"type": "play", "cards": ["3S", "3S"], "combo": "pair"},
        {"type": "play", "cards": ["ZZ"], "combo": "solo"},
        {"type": "play", "cards": [{"x": 1}], "combo": "solo"},
        {"type": "play", "cards": ["3S"], "combo": ["solo"]},
        {"type": "play", "cards": ["3S", "4S"], "combo": "pair"},
        {"type": "play", "cards": [to_plain(c) for c in game.view(state, seat).hand[:2]],
         "combo": "rocket"},
        {"type": "play", "cards": "3S", "combo": "solo"},
        {"type": "bid", "value": 9},
    ]:
        try:
            game.apply(state, seat, game.decode_action(data))
            refusals.append("accepted")
        except IllegalAction as exc:
            refusals.append(exc.code)
    print(json.dumps({"loaded": loaded(), "choices": choices, "refusals": refusals}))
    """
)

SERVE = textwrap.dedent(
    """
    import contextlib, io, json
    from bench import fuzz, leak_audit
    from compiled.runtime import loaded

    def last_json(main, argv):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            code = main(argv)
        return code, json.loads(out.getvalue().strip().splitlines()[-1])

    print(json.dumps({
        "loaded": loaded(),
        "fuzz": last_json(fuzz.main, ["--seconds", "8", "--seed", "1"]),
        "audit": last_json(leak_audit.main, ["--games", "4", "--short", "--seed", "3"]),
    }))
    """
)

CONVERTED = textwrap.dedent(
    """
    import json, random
    from engine import codec
    from engine.codec import PlainMemo, to_plain
    from engine.registry import GAMES

    def converted():
        out = []
        for name, game in GAMES.items():
            options = game.options()
            seats = [*range(game.num_seats(options)), None]
            rng = random.Random(11)
            state = game.new_state(options, 11)
            memo = PlainMemo()
            for _ in range(60):
                views = [game.view(state, seat) for seat in seats]
                out.append([memo.convert(views), [c and c[1] for c in memo.changes]])
                if game.is_over(state):
                    break
                seat = game.to_act(state)[0]
                transition = game.apply(state, seat, rng.choice(game.legal_actions(state, seat)))
                state = transition.state
                out.append(to_plain(list(transition.events)))
        return out
    """
)
"""Every game's views (each state's together, with what changed) and events, converted."""

CONVERT = CONVERTED + textwrap.dedent(
    """
    out = converted()
    kinds = sorted({type(f).__name__ for f in codec._SHARED_CONVERTERS.values()})
    print(json.dumps({"out": out, "kinds": kinds}))
    """
)

GENERATE = CONVERTED + textwrap.dedent(
    """
    import types
    from compiled.converters import converter_module, converter_sources
    sources = converter_sources(seeds=1)
    module = types.ModuleType("generated")
    exec(compile(converter_module(sources), "generated", "exec"), module.__dict__)
    reference = converted()
    codec._CONVERTERS.clear()
    codec._SHARED_CONVERTERS.clear()
    codec._built_converters = lambda: module.BY_SOURCE
    generated = converted()
    print(json.dumps({
        "same": generated == reference,
        "sources": sorted(sources) == sorted(module.BY_SOURCE),
        "shared": len([s for s in sources if "\\ndef convert(v, mine" in s]),
        "plain": len([s for s in sources if "\\ndef convert(v):" in s]),
        "names": sorted({f.__name__[:2] for f in codec._SHARED_CONVERTERS.values()}),
    }))
    """
)

PACKAGES = ("engine", "protocol", "server", "client_web", "bench", "client_cli", "compiled")
"""What the build and the runs need of the project (and ``tests``, with ``pyproject.toml``
for pytest's settings, in the compiled copy: :data:`AGAINST_COMPILED`)."""

AGAINST_COMPILED = (
    "tests/engine/test_conformance.py",
    "tests/server/test_end_to_end.py",
    "tests/server/test_hot_path.py",
    "tests/server/test_fast_read.py",
    "tests/server/test_errors.py",
)
"""The test files run again against the compiled copy: the engine's conformance suite
and the server's tests over real sockets (whole games, the hot path, the fast read of
moves, malformed input)."""

PLAIN_ONLY = (
    "tests/server/test_fast_read.py::"
    "test_what_may_run_now_is_a_ping_or_a_move_or_vote_for_a_table_here",
)
"""Tests of :data:`AGAINST_COMPILED` that spy on a method by replacing it on its class
(``Connection._receive``): a compiled class calls its own methods natively, so the spy
sees nothing there; what they check of the code holds as plain Python."""


def _copy(to: Path, libraries_of: Path | None = None, tests: bool = False) -> Path:
    """A copy of the project's sources that the build and the runs need (with the
    tests if ``tests``), with the compiled libraries of the copy ``libraries_of`` if
    given."""
    skip = shutil.ignore_patterns("*.so", "__pycache__", "screenshots")
    for package in (*PACKAGES, "tests") if tests else PACKAGES:
        shutil.copytree(ROOT / package, to / package, ignore=skip)
    if tests:
        shutil.copy2(ROOT / "pyproject.toml", to / "pyproject.toml")
    if libraries_of is not None:
        for library in compiled_files(libraries_of):
            shutil.copy2(library, to / library.relative_to(libraries_of))
    return to


def _run(root: Path, code: str) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": str(root)}
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=root, env=env, capture_output=True, text=True, timeout=180
    )
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert isinstance(out, dict)
    return out


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the sources and tests with :data:`COMPILED` compiled in it, once a
    run (unoptimised C: the same code and decisions, built in under half the time)."""
    root = _copy(tmp_path_factory.mktemp("compiled"), tests=True)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "compiled.build",
            "--root",
            str(root),
            "--jobs",
            "2",
            "--opt-level",
            "0",
        ],
        cwd=root,
        env={**os.environ, "PYTHONPATH": str(root)},
        capture_output=True,
        text=True,
        timeout=400,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert f"compiled {len(COMPILED + GENERATED)} modules" in done.stdout
    return root


@pytest.fixture(scope="module")
def plain(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the sources with nothing compiled (this checkout may be compiled)."""
    return _copy(tmp_path_factory.mktemp("plain"))


def test_compiled_build_decides_and_refuses_exactly_as_plain_python(
    built: Path, plain: Path
) -> None:
    compiled = _run(built, PLAY)
    reference = _run(plain, PLAY)
    assert compiled["loaded"] == [module_name(p) for p in COMPILED + GENERATED]
    assert reference["loaded"] == []
    choices = compiled["choices"]
    assert isinstance(choices, list) and len(choices) > 20
    phases = {phase for phase, _ in choices}
    assert phases == {"bidding", "play"}
    assert choices == reference["choices"]
    assert compiled["refusals"] == reference["refusals"]
    assert "accepted" not in compiled["refusals"]


def test_the_compiled_conversions_give_what_the_generated_ones_give(
    built: Path, plain: Path
) -> None:
    """The build compiles engine.codec's generated conversions (GENERATED): every
    game's views (with what changed) and events convert exactly as in plain Python."""
    compiled = _run(built, CONVERT)
    reference = _run(plain, CONVERT)
    assert compiled["kinds"] == ["builtin_function_or_method"]  # compiled functions
    assert reference["kinds"] == ["function"]
    assert compiled["out"] == reference["out"]


def test_the_generated_module_converts_as_the_sources_it_was_made_from(plain: Path) -> None:
    """The build's module of conversions (run here as plain Python) holds each
    source the games generate, and its functions, typed and with the builtins called
    by name, convert exactly as the generated ones."""
    out = _run(plain, GENERATE)
    assert out["sources"] and out["same"]
    assert out["shared"] >= 4 and out["plain"] >= 10  # every game's view; events, moves
    assert out["names"] == ["_c"]  # the conversions in use came from the module


def test_a_compiled_server_serves_the_fuzzer_and_the_leak_audit_as_plain_python_does(
    built: Path,
) -> None:
    """The hot path compiled (:data:`HOT_PATH`): nothing the fuzzer sends crashes it,
    changes a table or gets ``internal_error``, and nobody sees what is hidden."""
    out = _run(built, SERVE)
    assert set(out["loaded"]) >= {module_name(p) for p in HOT_PATH}
    code, fuzzed = out["fuzz"]
    assert code == 0 and fuzzed["cases"] > 10 and fuzzed["accepted"] > 0
    assert (fuzzed["crashes"], fuzzed["internal_errors"], fuzzed["state_changes"]) == (0, 0, 0)
    code, audit = out["audit"]
    assert code == 0 and audit["games"] == 4 and audit["frames"] > 100
    assert set(audit["by_game"]) == {"scopa", "cicera", "doudizhu", "schafkopf"}
    assert (audit["leaks"], audit["view_mismatches"], audit["hidden_cards"]) == (0, 0, 0)


def test_a_source_changed_after_compiling_is_stale(built: Path, tmp_path: Path) -> None:
    assert stale(built) == []
    root = _copy(tmp_path, libraries_of=built)
    source = root / COMPILED[-1]
    later = max(p.stat().st_mtime for p in compiled_files(root)) + 10
    os.utime(source, (later, later))
    assert stale(root) == [COMPILED[-1]]


def test_the_server_refuses_to_start_on_a_stale_library(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(server.main, "stale", lambda: ["engine/doudizhu/ai/search.py"])
    assert server.main.main(["--port", "0"]) == 2
    err = capsys.readouterr().err
    assert "engine/doudizhu/ai/search.py" in err
    assert f"python -m compiled.build --root {runtime.ROOT}" in err


def test_clean_removes_the_libraries_and_a_wrong_root_is_refused(
    built: Path, tmp_path: Path
) -> None:
    root = _copy(tmp_path / "copy", libraries_of=built)
    assert any(compiled_files(root))
    script = [sys.executable, "-m", "compiled.build"]
    run = {"cwd": root, "env": {**os.environ, "PYTHONPATH": str(root)}}
    done = subprocess.run(
        [*script, "--root", str(root), "--clean"], capture_output=True, text=True, **run
    )
    assert done.returncode == 0 and f"removed {len(COMPILED + GENERATED) + 1}" in done.stdout
    assert not any(compiled_files(root))
    done = subprocess.run([*script, "--root", str(tmp_path)], capture_output=True, text=True, **run)
    assert done.returncode == 2 and "holds no engine/" in done.stderr


@pytest.mark.timeout(900)
def test_the_conformance_suite_and_the_socket_tests_pass_against_the_compiled_build(
    built: Path,
) -> None:
    """:data:`AGAINST_COMPILED`, run in the compiled copy: every module of the build
    loads compiled there, and each test passes as in plain Python."""
    deselect = [arg for test in PLAIN_ONLY for arg in ("--deselect", test)]
    args = [*AGAINST_COMPILED, *deselect, "-q", "-p", "no:cacheprovider", "-n", "0"]
    code = (
        "import sys, pytest\n"
        "from compiled.runtime import loaded\n"
        "print('loaded', len(loaded()), flush=True)\n"
        f"sys.exit(pytest.main({args!r}))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=built,
        env={**os.environ, "PYTHONPATH": str(built)},
        capture_output=True,
        text=True,
        timeout=850,
    )
    assert f"loaded {len(COMPILED + GENERATED)}\n" in done.stdout, done.stdout[-3000:]
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-2000:]  # 5: none collected
