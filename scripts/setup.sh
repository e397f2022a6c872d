#!/usr/bin/env bash
# Create ./.venv (Python >= 3.11) and install masques into it; "dev" also installs the test tools.
# Usage: scripts/setup.sh [dev]
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON="${PYTHON:-python3}"
if ! "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
  echo "masques needs Python >= 3.11 (found: $("$PYTHON" --version 2>&1 || echo none))." >&2
  echo "Set PYTHON=/path/to/python3.11 and run again." >&2
  exit 1
fi
if [ ! -x .venv/bin/python ]; then
  echo "Creating .venv with $("$PYTHON" --version)"
  "$PYTHON" -m venv .venv
fi
# A player's machine gets the compiled Mascarade solver (fast bots); dev gets every extra and the tools.
extra="[fast]"
[ "${1:-}" = "dev" ] && extra="[dev]"
# Quiet pip; filter the harmless notes some machines print about extra local indexes.
.venv/bin/python -m pip install --quiet --disable-pip-version-check -e ".${extra}" 2>&1 \
  | grep -v "^WARNING: Location 'file:" || true
.venv/bin/python -c 'import masques' # fail loudly if the install did not work
# Compile what the bots compile on first use (the Mascarade endgame solver: numba keeps it in its
# cache), so the first bot move that needs it, in the server or the arena, does not wait for it.
# It runs beside the client's build (one core each: the compiler, then npm, tsc, vitest and vite).
.venv/bin/python -c 'from masques.ai.parts import warm_up; warm_up()' &
warm_up=$!
# The browser client: build web/ into the package (skipped when up to date). Without Node.js the
# server still runs; its pages then say how to build the client.
bash scripts/build_web.sh || echo "setup: the web client was not built (see above); the API works without it" >&2
if ! wait "$warm_up"; then
  echo "setup: compiling the bots' solver failed (see above)" >&2
  exit 1
fi
