#!/usr/bin/env bash
# Create .venv (if missing) and install Cardavia into it with the given extras.
# Idempotent: a second run only checks that everything is installed.
set -euo pipefail
cd "$(dirname "$0")/.."
extras="${1:-}"
python="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  "$python" -m venv .venv
fi
stamp=".venv/.cardavia-installed${extras:+-$extras}"
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
  .venv/bin/python -m pip install --quiet --upgrade pip
  .venv/bin/python -m pip install --quiet -e ".${extras:+[$extras]}"
  touch "$stamp"
fi
# rlcard (a peer the tests compare with) unpacks its Dou Dizhu tables at its first
# import; do it once here, not in test workers that would race to unpack them
case ",$extras," in
  *,peers,*) .venv/bin/python -c "import rlcard.games.doudizhu.utils" ;;
esac
