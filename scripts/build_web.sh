#!/usr/bin/env bash
# Build the browser client (web/, TypeScript + three.js) into src/masques/server/static/, which the
# Python package ships, so users of the package need no Node.js. Skipped when the build is newer
# than every source file. Needs Node.js >= 20 with npm.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=src/masques/server/static/index.html
SOURCES=(web/src web/test web/index.html web/package.json web/package-lock.json web/vite.config.ts web/tsconfig.json)
# The views also import game data shipped with the engines (e.g. Mascarade's cards.json).
newer() { find "${SOURCES[@]}" -newer "$OUT" -print -quit; find src/masques/games -name '*.json' -newer "$OUT" -print -quit; }
if [ -f "$OUT" ] && [ -z "$(newer)" ]; then
  echo "web client: up to date"
  exit 0
fi
if ! command -v npm >/dev/null 2>&1; then
  echo "web client: npm is missing (install Node.js >= 20 with npm) — cannot build web/" >&2
  exit 1
fi
cd web
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "web client: installing npm packages (npm ci)"
  npm ci --no-audit --no-fund --loglevel=error
fi
echo "web client: unit tests (vitest, translations included), then the build"
npm run --silent build
