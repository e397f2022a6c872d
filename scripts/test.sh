#!/usr/bin/env bash
# Set up with the test tools, then lint (ruff), type-check (mypy --strict) and run the tests.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh dev
echo "== services (PostgreSQL, Redis on loopback)"
eval "$(bash scripts/services.sh)"
echo "== ruff"
.venv/bin/ruff check src tests benchmarks scripts examples
echo "== mypy --strict"
.venv/bin/mypy
echo "== pytest"
set +e
.venv/bin/python -m pytest "$@"
rc=$?
set -e
if [ "$rc" -eq 5 ]; then
  echo "pytest collected no tests: that is a failure here." >&2
  exit 1
fi
exit "$rc"
