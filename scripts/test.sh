#!/usr/bin/env bash
# Quick start, tests: set up and run the whole suite (lint, types, pytest).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh dev,peers
.venv/bin/ruff check .
.venv/bin/ruff format --check .
.venv/bin/mypy
.venv/bin/python -m pytest "$@"
