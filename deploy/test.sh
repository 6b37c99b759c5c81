#!/usr/bin/env bash
# The test command: bring the local stack up, then run every test of the workspace
# (unit tests, and the end-to-end tests against PostgreSQL, tansu and moto S3).
set -euo pipefail
REPO_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$REPO_ROOT"
bash deploy/stack.sh up
eval "$(bash deploy/stack.sh env)"
# The chaos test runs the service binaries as real processes.
cargo build --bins
if cargo nextest --version >/dev/null 2>&1; then
  cargo nextest run --workspace --no-fail-fast "$@"
else
  echo "cargo-nextest not found; using cargo test" >&2
  cargo test --workspace --no-fail-fast "$@"
fi
