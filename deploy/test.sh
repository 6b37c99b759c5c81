#!/usr/bin/env bash
# The test command: bring the local stack up, then run every test of the workspace
# (unit tests, and the end-to-end tests against PostgreSQL, tansu and moto S3).
set -euo pipefail
REPO_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$REPO_ROOT"
# Built first: `stack.sh up` runs `edihub init` with this checkout's binary, and the chaos
# test runs the service binaries as real processes. A stale binary would migrate with
# another checkout's migrations.
cargo build --bins
bash deploy/stack.sh up
eval "$(bash deploy/stack.sh env)"
# Each test makes its own database (edihub_test_<suffix>); drop the ones earlier runs
# left behind so they do not pile up. One that is still in use is left alone.
psql "${DATABASE_URL%/*}/postgres" -Atc \
  "SELECT datname FROM pg_database WHERE datname LIKE 'edihub\_test\_%'" |
  while read -r db; do psql "${DATABASE_URL%/*}/postgres" -qc "DROP DATABASE IF EXISTS \"$db\"" 2>/dev/null || true; done
if cargo nextest --version >/dev/null 2>&1; then
  cargo nextest run --workspace --no-fail-fast "$@"
else
  echo "cargo-nextest not found; using cargo test" >&2
  cargo test --workspace --no-fail-fast "$@"
fi
