#!/usr/bin/env bash
# Set up with the test tools (and what the browser tests need: Chromium, the built web client), then
# lint (ruff), type-check (mypy --strict) and run the tests.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh dev
echo "== browser and web client (end-to-end tests: Debian's Chromium, the client built from web/)"
missing=()
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
command -v npm >/dev/null 2>&1 || missing+=(nodejs npm)
if [ "${#missing[@]}" -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "missing ${missing[*]}: install them (apt-get install ${missing[*]}) or run as root" >&2
    exit 1
  fi
  echo "installing ${missing[*]} from Debian's packages"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi
bash scripts/build_web.sh
echo "== services (PostgreSQL, Redis on loopback)"
eval "$(bash scripts/services.sh)"
echo "== ruff"
.venv/bin/ruff check src tests benchmarks scripts examples build_support
echo "== mypy --strict"
.venv/bin/mypy
echo "== pytest"
set +e
# Two workers or one per core, whichever is more: the tests wait on servers, browsers and bots as
# much as they compute, and each test holds its own server, database and ports.
.venv/bin/python -m pytest -n "$(.venv/bin/python -c 'import os; print(max(2, os.cpu_count() or 1))')" --durations=25 "$@"
rc=$?
set -e
if [ "$rc" -eq 5 ]; then
  echo "pytest collected no tests: that is a failure here." >&2
  exit 1
fi
exit "$rc"
