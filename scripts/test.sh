#!/usr/bin/env bash
# Set up with the test tools (and what the browser tests need: Chromium, the built web client), then
# lint (ruff), type-check (mypy --strict) and run the tests.
set -euo pipefail
cd "$(dirname "$0")/.."
# Debian's packages first, in one apt-get run with the services' own (PostgreSQL, Redis, nginx):
# Chromium for the end-to-end tests and Node.js for the client, which setup.sh then builds.
echo "== services (PostgreSQL, Redis on loopback), Debian's Chromium and Node.js"
browser=()
command -v chromium >/dev/null 2>&1 || browser+=(chromium)
command -v npm >/dev/null 2>&1 || browser+=(nodejs npm)
eval "$(MASQUES_ALSO_INSTALL="${browser[*]}" bash scripts/services.sh)"
bash scripts/setup.sh dev
echo "== web client (the end-to-end tests' client, built from web/)"
bash scripts/build_web.sh
echo "== ruff"
.venv/bin/ruff check src tests benchmarks scripts examples build_support
# mypy runs beside the tests (its one core is otherwise idle while they start and wait on servers and
# browsers); its verdict is printed after theirs, and either failing fails the run.
typed="$(mktemp)"
.venv/bin/mypy > "$typed" 2>&1 &
mypy_pid=$!
# Interrupted, or ended early: mypy goes too (a background job of a script ignores Ctrl-C).
trap 'kill "$mypy_pid" 2>/dev/null || true; rm -f "$typed"' EXIT
trap 'exit 130' INT TERM
echo "== pytest (mypy --strict beside it)"
set +e
# Three workers or one per core, whichever is more: the tests wait on servers, browsers and bots as
# much as they compute (on two cores, three workers end the suite minutes before two), and each test
# holds its own server, database and ports.
.venv/bin/python -m pytest -n "$(.venv/bin/python -c 'import os; print(max(3, os.cpu_count() or 1))')" --durations=25 "$@"
rc=$?
wait "$mypy_pid"
mypy_rc=$?
set -e
echo "== mypy --strict"
cat "$typed"
if [ "$rc" -eq 5 ]; then
  echo "pytest collected no tests: that is a failure here." >&2
  exit 1
fi
if [ "$mypy_rc" -ne 0 ]; then
  echo "mypy --strict found errors (above)." >&2
  exit "$mypy_rc"
fi
exit "$rc"
