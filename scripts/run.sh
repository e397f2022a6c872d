#!/usr/bin/env bash
# The main job: set up, then play Blokus 3D in the terminal against three random bots.
# Extra arguments go to 'masques play' (e.g. --structure A --players 2 --seats human,random).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
if [ "$#" -eq 0 ]; then
  set -- --structure D --players 4 --seats human,random,random,random
fi
exec .venv/bin/masques play blokus3d "$@"
