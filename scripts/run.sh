#!/usr/bin/env bash
# Quick start, main job: set up and run Cardavia (extra arguments go to the command).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
if [ "$#" -eq 0 ]; then
  set -- selfplay --game scopa --games 200 --seed 1 --policies greedy,random
fi
exec .venv/bin/cardavia "$@"
