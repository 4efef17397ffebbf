#!/usr/bin/env bash
# Quick start, main job: set up and start the server (with arguments: run `cardavia ARGS`).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
if [ "$#" -eq 0 ]; then
  # the server on the in-memory store; cardavia-server --help lists the settings
  exec .venv/bin/cardavia-server
fi
exec .venv/bin/cardavia "$@"
