#!/usr/bin/env bash
# The main job: set up, then run the Masques server (SQLite in the user data dir, bots included)
# at http://127.0.0.1:8000. Extra arguments go to 'masques serve' (e.g. --port 8080).
# To play in the terminal instead: .venv/bin/masques play blokus3d --seats human,random,random,random
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec .venv/bin/masques serve "$@"
