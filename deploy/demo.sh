#!/usr/bin/env bash
# The hub's main job, locally: bring the stack up, start the four services, send a sample
# INVOIC as partner ACME-SUPPLIER over AS2, and show each step of its path: the MDN, the
# Kafka event, the canonical invoice and the archived original.
#
#   deploy/demo.sh [FILE]   run it (default FILE: fixtures/edifact/invoic-eancom-d96a.edi);
#                           the services keep running afterwards, so you can send more
#   deploy/demo.sh stop     stop the services (the stack stays up: deploy/stack.sh down)
#
# Service logs: .local/logs/<service>.log. Settings: deploy/local/edihub.toml.
set -euo pipefail

REPO_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
LOCAL_DIR=${EDIHUB_LOCAL:-$REPO_ROOT/.local}
LOG_DIR=$LOCAL_DIR/logs
RUN_DIR=$LOCAL_DIR/run
# Release builds: the demo shows the hub's real speed (debug builds spend several times
# the CPU per message). The tests build debug binaries of their own.
BIN=${CARGO_TARGET_DIR:-$REPO_ROOT/target}/release
# stack.sh runs `edihub init` with this binary, not the debug one the tests use.
export EDIHUB_BIN=$BIN/edihub
SERVICES=(as2-gateway outbox-relay transform-consumer archive-consumer)
export EDIHUB_CONFIG=${EDIHUB_CONFIG:-$REPO_ROOT/deploy/local/edihub.toml}

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

stop_services() {
  for service in "${SERVICES[@]}"; do
    local pid_file=$RUN_DIR/$service.pid
    [[ -f $pid_file ]] || continue
    local pid
    pid=$(<"$pid_file")
    if kill -0 "$pid" 2>/dev/null; then
      kill -TERM "$pid" 2>/dev/null || true
      for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
      kill -KILL "$pid" 2>/dev/null || true
    fi
    rm -f "$pid_file"
  done
}

if [[ ${1:-} == stop ]]; then
  stop_services
  echo "services stopped"
  exit 0
fi
FILE=${1:-$REPO_ROOT/fixtures/edifact/invoic-eancom-d96a.edi}

cd "$REPO_ROOT" # the settings name key files relative to the repository root

step "Building the hub (cargo build --release)"
(cd "$REPO_ROOT" && cargo build --release --quiet --bin edihub "${SERVICES[@]/#/--bin=}")

step "Bringing the local stack up (PostgreSQL, moto S3, tansu Kafka)"
bash "$REPO_ROOT/deploy/stack.sh" up
eval "$(bash "$REPO_ROOT/deploy/stack.sh" env)"

step "Starting the services"
mkdir -p "$LOG_DIR" "$RUN_DIR"
stop_services # a previous demo's processes may run older binaries
for service in "${SERVICES[@]}"; do
  nohup "$BIN/$service" >>"$LOG_DIR/$service.log" 2>&1 &
  echo $! >"$RUN_DIR/$service.pid"
  echo "$service started (pid $!, log $LOG_DIR/$service.log)"
done
for _ in $(seq 1 100); do
  curl -fs http://127.0.0.1:9100/ready >/dev/null 2>&1 && break
  sleep 0.1
done
curl -fs http://127.0.0.1:9100/ready >/dev/null || { echo "gateway not ready; see $LOG_DIR/as2-gateway.log" >&2; exit 1; }

AS2_ID="demo-$(date +%s%N)@acme-supplier"
step "1. Sending $(basename "$FILE") over AS2 as ACME-SUPPLIER -> EDIHUB"
"$BIN/edihub" send "$FILE" --message-id "$AS2_ID"

step "2. The EdiMessageReceived event on edi.inbound.received (published by the relay)"
"$BIN/edihub" events --topic edi.inbound.received --message "$AS2_ID" --timeout 30

step "3. The message's journey: journal, outbox, canonical invoice, archive record"
"$BIN/edihub" message "$AS2_ID" --wait 60

step "4. The auditor's check of the archived original (S3 Object Lock)"
"$BIN/edihub" audit fetch "$AS2_ID"

SECURE_ID="demo-secure-$(date +%s%N)@acme-supplier"
step "5. The same file signed (sha256), encrypted (aes256) and compressed, with a signed MDN"
"$BIN/edihub" send "$FILE" --message-id "$SECURE_ID" \
  --sign sha256 --key fixtures/as2/partner-a.key --cert fixtures/as2/partner-a.crt \
  --encrypt aes256 --compress --hub-cert fixtures/as2/hub.crt --signed-mdn sha256
"$BIN/edihub" message "$SECURE_ID" --wait 60 | grep -E '"(status|retention_mode|invoice_number|payload_sha256)"' 

echo
echo "The hub keeps running: send your own file with"
echo "  target/release/edihub send FILE            (partner ACME-SUPPLIER, hub EDIHUB)"
echo "Stop it with: bash deploy/demo.sh stop && bash deploy/stack.sh down"
