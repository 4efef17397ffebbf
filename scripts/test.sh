#!/usr/bin/env bash
# Quick start, tests: set up and run the whole suite (lint, types, pytest).
set -euo pipefail
cd "$(dirname "$0")/.."
# the Redis store tests run Debian's redis-server, the balancer test Debian's haproxy,
# the browser tests (tests/client_web) Debian's chromium, the compiled build's test gcc
# (tests/engine/test_compiled.py compiles once a run, into a copy, and runs the engine's
# conformance suite and the server's socket tests there too: the build the image ships),
# the database tests Debian's postgresql (its binaries live in /usr/lib/postgresql/*/bin)
for pkg in redis-server haproxy chromium gcc postgresql; do
  if [ "$pkg" = postgresql ] && compgen -G "/usr/lib/postgresql/*/bin/pg_ctl" >/dev/null; then
    continue
  fi
  if ! command -v "$pkg" >/dev/null && ! [ -x /usr/sbin/"$pkg" ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
      apt-get update && apt-get install -y "$pkg"
    elif command -v apt-get >/dev/null && sudo -n true 2>/dev/null; then
      sudo -n apt-get update && sudo -n apt-get install -y "$pkg"
    else
      echo "warning: $pkg is missing and cannot be installed here;" \
        "install Debian's $pkg package (the tests that need it fail without it)" >&2
    fi
  fi
done
bash scripts/setup.sh dev,peers
.venv/bin/ruff check .
.venv/bin/ruff format --check .
.venv/bin/mypy
# cached bytecode: the suite starts many Python processes (servers, their AI workers,
# clients), and with PYTHONDONTWRITEBYTECODE set each compiles every module of ours
# again (0.5 s a server start; the whole suite took 317 s instead of 283 s here)
unset PYTHONDONTWRITEBYTECODE
# four workers, one test file each at a time, the heavy files first (tests/conftest.py;
# xdist would order files by test count).  Four, not one per core: many tests wait on
# servers, timers and the browser, so on two cores four workers took 209 s where two
# (-n auto) took 293 s.  The 25 slowest tests are listed at the end, to keep the
# suite's time in sight
.venv/bin/python -m pytest -n 4 --dist loadfile --no-loadscope-reorder --durations=25 "$@"
