#!/usr/bin/env bash
# Local edihub stack: PostgreSQL (the machine's), moto's S3 server (PyPI, in a venv,
# started through deploy/moto_server.py) and tansu, the Kafka-compatible broker
# (crates.io, cached binary).
#
#   deploy/stack.sh up      start what is not running (idempotent), then `edihub init`
#   deploy/stack.sh down    stop tansu and moto (PostgreSQL belongs to the machine: left up)
#   deploy/stack.sh status  one line per component; exit 0 only when all are up
#   deploy/stack.sh env     print `export` lines for the local defaults (eval them)
#
# State and logs live in ${EDIHUB_LOCAL:-<repo>/.local}: logs/moto.log, logs/tansu.log,
# run/moto.pid, run/tansu.pid. Nothing here downloads anything except packages by name
# from Debian (PostgreSQL, only when absent), PyPI (deploy/requirements.txt) and
# crates.io (tansu, only when its binary is absent).
#
# Overrides: EDIHUB_LOCAL, EDIHUB_VENV, EDIHUB_TOOLS, EDIHUB_BIN, EDIHUB_PYTHON,
# EDIHUB_KAFKA_STORAGE (memory|s3), KAFKA_PORT (9092), S3_PORT (9000).
set -euo pipefail
trap 'warn "failed (exit $?) at line $LINENO: $BASH_COMMAND"' ERR

REPO_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
LOCAL_DIR=${EDIHUB_LOCAL:-$REPO_ROOT/.local}
LOG_DIR=$LOCAL_DIR/logs
RUN_DIR=$LOCAL_DIR/run
VENV=${EDIHUB_VENV:-$HOME/.cache/edihub/venv}
PYTHON=${EDIHUB_PYTHON:-python3}
REQUIREMENTS=$REPO_ROOT/deploy/requirements.txt
MOTO_LAUNCHER=$REPO_ROOT/deploy/moto_server.py
REQ_STAMP=$VENV/.edihub-requirements.sha256
TOOLS=${EDIHUB_TOOLS:-$HOME/.cargo/edihub-tools}
TANSU_VERSION=0.6.0
TANSU_ROOT=$TOOLS/tansu-$TANSU_VERSION
TANSU_BIN=$TANSU_ROOT/bin/tansu
TANSU_PAT="bin/tansu broker" # how a running broker's command line looks
EDIHUB_BIN=${EDIHUB_BIN:-${CARGO_TARGET_DIR:-$REPO_ROOT/target}/debug/edihub}
KAFKA_STORAGE=${EDIHUB_KAFKA_STORAGE:-memory}
KAFKA_PORT=${KAFKA_PORT:-9092}
S3_PORT=${S3_PORT:-9000}
HOST=127.0.0.1
# What starts moto; one running otherwise (an earlier stack's launcher) is restarted.
MOTO_COMMAND=("$VENV/bin/python" "$MOTO_LAUNCHER" -H "$HOST" -p "$S3_PORT" --threads 4)
PG_PORT=5432
PG_URL=postgres://postgres:postgres@$HOST:$PG_PORT
S3_ENDPOINT_OVERRIDE=${S3_ENDPOINT:-}
S3_ENDPOINT=http://$HOST:$S3_PORT
S3_REGION=us-east-1
S3_KEY=testing
S3_SECRET=testing
TANSU_BUCKET=tansu
TOPICS=(edi.inbound.received edi.invoice.canonical edi.inbound.rejected edi.acknowledgement.issued edi.message.parsed edi.outbound.status edi.dead-letter)
TOPIC_PARTITIONS=3
POLL=0.2
MOTO_STARTED=0

log() { printf '%s\n' "$*"; }
warn() { printf 'stack.sh: %s\n' "$*" >&2; }
die() {
  warn "$*"
  exit 1
}

# ---------------------------------------------------------------- helpers

# wait_until DESCRIPTION TIMEOUT_SECONDS COMMAND...: poll COMMAND every $POLL seconds.
wait_until() {
  local desc=$1 timeout=$2
  shift 2
  local deadline=$((SECONDS + timeout))
  until "$@"; do
    if ((SECONDS >= deadline)); then
      warn "timed out after ${timeout}s waiting for $desc"
      return 1
    fi
    sleep "$POLL"
  done
}

port_open() { (exec 3<>"/dev/tcp/$HOST/$1") 2>/dev/null; }
port_closed() { ! port_open "$1"; }

cmdline_of() { tr '\0' ' ' <"/proc/$1/cmdline" 2>/dev/null || true; }

# pid_matches PID PATTERN: PID is alive and its command line contains PATTERN.
pid_matches() {
  [[ -n $1 ]] && kill -0 "$1" 2>/dev/null && [[ $(cmdline_of "$1") == *"$2"* ]]
}

# Pid of the process listening on HOST:PORT, if ss can tell.
port_owner() {
  command -v ss >/dev/null || return 0
  ss -Hltnp "sport = :$1" 2>/dev/null | grep -o 'pid=[0-9]*' | head -n1 | cut -d= -f2 || true
}

pidfile() { printf '%s/%s.pid' "$RUN_DIR" "$1"; }

# live_pid NAME PATTERN: the recorded pid of NAME if that process still runs.
live_pid() {
  local file pid
  file=$(pidfile "$1")
  [[ -f $file ]] || return 0
  pid=$(<"$file")
  if pid_matches "$pid" "$2"; then
    printf '%s' "$pid"
  fi
}

# stop_pid NAME PID: TERM, wait up to 15 s, then KILL.
stop_pid() {
  local name=$1 pid=$2
  kill -TERM "$pid" 2>/dev/null || return 0
  if ! wait_until "$name (pid $pid) to exit" 15 pid_gone "$pid" 2>/dev/null; then
    warn "$name (pid $pid) ignored SIGTERM; sending SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
    wait_until "$name (pid $pid) to die" 5 pid_gone "$pid"
  fi
}
pid_gone() { ! kill -0 "$1" 2>/dev/null; }

# stop_component NAME PATTERN PORT: stop by pid file, then make sure PORT is free; a
# leftover listener is stopped only if it is the same kind of program (PATTERN).
# (Explicit `|| return 1`: cmd_down calls this where errexit does not apply.)
stop_component() {
  local name=$1 pattern=$2 port=$3 pid owner
  pid=$(live_pid "$name" "$pattern")
  if [[ -n $pid ]]; then
    log "$name: stopping pid $pid"
    stop_pid "$name" "$pid" || return 1
  fi
  rm -f "$(pidfile "$name")"
  if port_open "$port"; then
    owner=$(port_owner "$port")
    if pid_matches "$owner" "$pattern"; then
      log "$name: stopping leftover $name on port $port (pid $owner, no pid file)"
      stop_pid "$name" "$owner" || return 1
      pid=$owner
    else
      warn "$name: port $port is held by another program (pid ${owner:-unknown}: $(cmdline_of "${owner:-0}")); not touching it"
      return 1
    fi
  fi
  wait_until "port $port to be free" 10 port_closed "$port" || return 1
  if [[ -n $pid ]]; then
    log "$name: stopped; port $port is free"
  else
    log "$name: not running"
  fi
}

# adopt NAME PATTERN PORT: if our kind of program already listens on PORT without a pid
# file (e.g. .local was wiped), record its pid; prints it.
adopt() {
  local name=$1 pattern=$2 port=$3 owner
  port_open "$port" || return 0
  owner=$(port_owner "$port")
  if pid_matches "$owner" "$pattern"; then
    printf '%s' "$owner" >"$(pidfile "$name")"
    printf '%s' "$owner"
  else
    die "$name: port $port is already in use by another program (pid ${owner:-unknown}: $(cmdline_of "${owner:-0}"))"
  fi
}

# wait_ready NAME PID TIMEOUT CHECK...: poll CHECK while PID lives.
wait_ready() {
  local name=$1 pid=$2 timeout=$3
  shift 3
  local deadline=$((SECONDS + timeout))
  until "$@"; do
    if ! kill -0 "$pid" 2>/dev/null; then
      warn "$name exited during start-up; last lines of $LOG_DIR/$name.log:"
      tail -n 20 "$LOG_DIR/$name.log" >&2 || true
      rm -f "$(pidfile "$name")"
      return 1
    fi
    if ((SECONDS >= deadline)); then
      warn "$name (pid $pid) not ready after ${timeout}s; see $LOG_DIR/$name.log"
      return 1
    fi
    sleep "$POLL"
  done
}

close_inherited_fds() {
  local fd
  for fd in /proc/"$BASHPID"/fd/*; do
    fd=${fd##*/}
    if [[ $fd =~ ^[0-9]+$ ]] && ((fd > 2)); then
      eval "exec $fd>&-" 2>/dev/null || true
    fi
  done
}

# spawn NAME COMMAND...: start COMMAND detached, logging to logs/NAME.log; prints the pid.
spawn() {
  local name=$1
  shift
  printf '\n==== %s: %s\n' "$(date -u +%FT%TZ)" "$*" >>"$LOG_DIR/$name.log"
  # setsid: own session, so the process outlives this script and its terminal.
  # The cwd is the state folder so that tansu's dotenv never reads a stray .env.
  # The daemon inherits no descriptor but its log: not the stack lock (fd 9), nor a
  # caller's pipe, which would otherwise stay open for as long as the daemon runs.
  (
    cd "$LOCAL_DIR"
    close_inherited_fds
    exec setsid "$@" </dev/null >>"$LOG_DIR/$name.log" 2>&1
  ) &
  local pid=$!
  printf '%s' "$pid" >"$(pidfile "$name")"
  printf '%s' "$pid"
}

# ---------------------------------------------------------------- PostgreSQL

pg_version() { find /etc/postgresql -mindepth 1 -maxdepth 1 -printf '%f\n' 2>/dev/null | sort -V | tail -n1; }
pg_ready() { pg_isready -q -h "$HOST" -p "$PG_PORT"; }
pg_login_ok() { psql "$PG_URL/postgres" -XtAqc 'SELECT 1' >/dev/null 2>&1; }

as_root() {
  if ((EUID == 0)); then "$@"; else sudo "$@"; fi
}

ensure_postgres() {
  if ! command -v pg_isready >/dev/null || ! command -v psql >/dev/null ||
    ! command -v pg_ctlcluster >/dev/null || [[ -z $(pg_version) ]]; then
    log "postgres: not installed; installing Debian's postgresql package"
    as_root apt-get update
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y postgresql
  fi
  if ! pg_ready; then
    local ver
    ver=$(pg_version)
    log "postgres: starting cluster $ver/main"
    as_root pg_ctlcluster --skip-systemctl-redirect "$ver" main start
    wait_until "PostgreSQL on $HOST:$PG_PORT" 60 pg_ready
  fi
  if ! pg_login_ok; then
    # A fresh Debian install uses peer auth on the socket and a password on TCP.
    log "postgres: setting the postgres role's password to 'postgres'"
    as_root runuser -u postgres -- psql -XqAc "ALTER ROLE postgres PASSWORD 'postgres'"
    pg_login_ok || die "postgres: cannot log in as $PG_URL; check pg_hba.conf"
  fi
  if [[ $(psql "$PG_URL/postgres" -XtAc "SELECT 1 FROM pg_database WHERE datname = 'edihub'") != 1 ]]; then
    log "postgres: creating database edihub"
    psql "$PG_URL/postgres" -XqAc 'CREATE DATABASE edihub'
  fi
  log "postgres: up on $HOST:$PG_PORT (database edihub)"
}

# Prints "pid log" of the cluster that listens on PG_PORT.
pg_cluster_info() {
  command -v pg_lsclusters >/dev/null || return 0
  local port status datadir logfile
  while read -r _ _ port status _ datadir logfile; do
    [[ $port == "$PG_PORT" ]] || continue
    local pid=-
    [[ $status == online* && -r $datadir/postmaster.pid ]] && pid=$(head -n1 "$datadir/postmaster.pid")
    printf '%s %s' "$pid" "${logfile:-?}"
    return 0
  done < <(pg_lsclusters -h 2>/dev/null)
}

# ---------------------------------------------------------------- venv (moto, pyas2lib)

req_hash() { sha256sum "$REQUIREMENTS" | cut -d' ' -f1; }

venv_current() {
  [[ -x $VENV/bin/python && -x $VENV/bin/moto_server && -f $REQ_STAMP ]] &&
    [[ $(<"$REQ_STAMP") == "$(req_hash)" ]]
}

ensure_venv() {
  if venv_current; then
    log "venv: $VENV is current"
  else
    if [[ -e $VENV ]]; then
      [[ -f $VENV/pyvenv.cfg ]] || die "venv: $VENV exists and is not a venv; refusing to replace it"
      # moto runs from this venv: stop it before replacing the files under it.
      stop_component moto moto_server "$S3_PORT"
      log "venv: $(basename "$REQUIREMENTS") changed (or venv incomplete); rebuilding $VENV"
      rm -rf "$VENV"
    else
      log "venv: creating $VENV"
    fi
    mkdir -p "$(dirname "$VENV")"
    "$PYTHON" -m venv "$VENV"
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check -r "$REQUIREMENTS"
  fi
  patch_oscrypto
  "$VENV/bin/python" -c 'import pyas2lib' || die "venv: 'import pyas2lib' fails in $VENV"
  req_hash >"$REQ_STAMP"
}

# oscrypto 1.3.0 (pinned by pyas2lib) cannot parse OpenSSL 3.0.10+ version strings.
# Widen its version regex; idempotent (the old text no longer occurs once patched).
patch_oscrypto() {
  "$VENV/bin/python" - <<'PY'
import glob, importlib.util, os
spec = importlib.util.find_spec("oscrypto")
if spec is None or not spec.submodule_search_locations:
    raise SystemExit("oscrypto is not installed in the venv")
root = os.path.join(list(spec.submodule_search_locations)[0], "_openssl")
old = r"\\d\\.\\d\\.\\d[a-z]*"
new = r"\\d\\.\\d\\.\\d+[a-z]*"
files = sorted(glob.glob(os.path.join(root, "_libcrypto_c*.py")))
if not files:
    raise SystemExit("no oscrypto/_openssl/_libcrypto_c*.py found under " + root)
for path in files:
    with open(path) as f:
        text = f.read()
    if old in text:
        with open(path, "w") as f:
            f.write(text.replace(old, new))
        print("venv: patched oscrypto version regex in " + os.path.basename(path))
    elif new not in text:
        raise SystemExit("oscrypto version regex not found in " + path)
PY
}

# ---------------------------------------------------------------- moto (S3)

s3_ready() {
  "$VENV/bin/python" - "$S3_ENDPOINT" <<'PY' >/dev/null 2>&1
import sys, urllib.request, urllib.error
try:
    urllib.request.urlopen(sys.argv[1] + "/", timeout=2)
except urllib.error.HTTPError:
    pass  # any HTTP answer means the server is serving
PY
}

start_moto() {
  local pid
  pid=$(live_pid moto moto_server)
  [[ -n $pid ]] || pid=$(adopt moto moto_server "$S3_PORT")
  if [[ -n $pid && $(cmdline_of "$pid") != "${MOTO_COMMAND[*]} " ]]; then
    log "moto: started otherwise than by this stack (an earlier one's); restarting it"
    stop_component moto moto_server "$S3_PORT"
    pid=
  fi
  if [[ -n $pid ]]; then
    log "moto: already up on $S3_ENDPOINT (pid $pid)"
    return 0
  fi
  pid=$(spawn moto "${MOTO_COMMAND[@]}")
  wait_ready moto "$pid" 60 s3_ready
  MOTO_STARTED=1
  log "moto: up on $S3_ENDPOINT (pid $pid, log $LOG_DIR/moto.log)"
}

ensure_bucket() {
  "$VENV/bin/python" - "$S3_ENDPOINT" "$S3_REGION" "$1" <<'PY'
import sys, boto3, botocore.exceptions
endpoint, region, bucket = sys.argv[1:]
s3 = boto3.client("s3", endpoint_url=endpoint, region_name=region,
                  aws_access_key_id="testing", aws_secret_access_key="testing")
try:
    s3.head_bucket(Bucket=bucket)
except botocore.exceptions.ClientError:
    s3.create_bucket(Bucket=bucket)
    print("moto: created bucket " + bucket)
PY
}

# ---------------------------------------------------------------- tansu (Kafka)

tansu_storage_url() {
  case $KAFKA_STORAGE in
    memory) printf 'memory://%s/' "$TANSU_BUCKET" ;;
    s3) printf 's3://%s/' "$TANSU_BUCKET" ;;
    *) die "EDIHUB_KAFKA_STORAGE must be memory or s3, not '$KAFKA_STORAGE'" ;;
  esac
}

ensure_tansu_binary() {
  [[ -x $TANSU_BIN ]] && return 0
  if pgrep -f 'cargo install tansu' >/dev/null; then
    log "tansu: a 'cargo install tansu' is already running; waiting for it to finish (up to 40 min)"
    wait_until "the running 'cargo install tansu'" 2400 tansu_install_done
  else
    command -v cargo >/dev/null || die "tansu: $TANSU_BIN is missing and cargo is not installed"
    mkdir -p "$TANSU_ROOT"
    log "tansu: $TANSU_BIN not found; building tansu $TANSU_VERSION from crates.io"
    log "tansu: this takes about 12+ minutes on 2 cores (output also in $LOG_DIR/tansu-install.log)"
    cargo install tansu --version "$TANSU_VERSION" --features dynostore --locked \
      --root "$TANSU_ROOT" 2>&1 | tee "$LOG_DIR/tansu-install.log"
  fi
  [[ -x $TANSU_BIN ]] || die "tansu: $TANSU_BIN still missing after cargo install"
}
tansu_install_done() { ! pgrep -f 'cargo install tansu' >/dev/null; }

tansu_broker_url() { printf 'tcp://%s:%s' "$HOST" "$KAFKA_PORT"; }

# A real Kafka round trip: a Metadata request through tansu's own client.
tansu_topics() {
  (cd "$LOCAL_DIR" && "$TANSU_BIN" topic list --broker "$(tansu_broker_url)" 2>/dev/null) |
    { grep -o '"name":"[^"]*"' || true; } | cut -d'"' -f4
}
kafka_ready() {
  port_open "$KAFKA_PORT" &&
    (cd "$LOCAL_DIR" && "$TANSU_BIN" topic list --broker "$(tansu_broker_url)" >/dev/null 2>&1)
}

start_tansu() {
  local storage pid
  storage=$(tansu_storage_url)
  pid=$(live_pid tansu "$TANSU_PAT")
  [[ -n $pid ]] || pid=$(adopt tansu "$TANSU_PAT" "$KAFKA_PORT")
  if [[ -n $pid ]]; then
    if [[ $(cmdline_of "$pid") != *"--storage-engine $storage"* ]]; then
      log "tansu: running with other storage than $storage; restarting it"
    elif [[ $KAFKA_STORAGE == s3 && $MOTO_STARTED == 1 ]]; then
      # moto keeps buckets in memory: a new moto means tansu's s3 storage is gone.
      log "tansu: moto was restarted under it, so its s3 storage is gone; restarting it"
    else
      log "tansu: already up on $HOST:$KAFKA_PORT with $storage (pid $pid)"
      return 0
    fi
    stop_component tansu "$TANSU_PAT" "$KAFKA_PORT"
  fi
  local -a env_vars=()
  if [[ $KAFKA_STORAGE == s3 ]]; then
    ensure_bucket "$TANSU_BUCKET"
    env_vars=(
      AWS_ENDPOINT="$S3_ENDPOINT" AWS_ALLOW_HTTP=true AWS_DEFAULT_REGION="$S3_REGION"
      AWS_REGION="$S3_REGION" AWS_ACCESS_KEY_ID="$S3_KEY" AWS_SECRET_ACCESS_KEY="$S3_SECRET"
    )
  fi
  pid=$(spawn tansu env -u AWS_SESSION_TOKEN -u AWS_PROFILE "${env_vars[@]}" \
    "$TANSU_BIN" broker \
    --listener-url "$(tansu_broker_url)" \
    --advertised-listener-url "$(tansu_broker_url)" \
    --storage-engine "$storage")
  wait_ready tansu "$pid" 60 kafka_ready
  log "tansu: up on $HOST:$KAFKA_PORT with $storage (pid $pid, log $LOG_DIR/tansu.log)"
}

ensure_topics() {
  local existing topic
  existing=$(tansu_topics)
  for topic in "${TOPICS[@]}"; do
    if grep -qxF "$topic" <<<"$existing"; then
      continue
    fi
    log "tansu: creating topic $topic ($TOPIC_PARTITIONS partitions)"
    if ! (cd "$LOCAL_DIR" && "$TANSU_BIN" topic create "$topic" \
      --partitions "$TOPIC_PARTITIONS" --broker "$(tansu_broker_url)" >/dev/null 2>&1); then
      # Lost a race with another creator? Then it exists now.
      tansu_topics | grep -qxF "$topic" || die "tansu: could not create topic $topic"
    fi
  done
  log "tansu: topics present: ${TOPICS[*]}"
}

# ---------------------------------------------------------------- edihub init

# The local defaults from DESIGN.md; values already set in the environment win.
print_env() {
  printf 'export %s=%q\n' \
    DATABASE_URL "${DATABASE_URL:-$PG_URL/edihub}" \
    KAFKA_BROKERS "${KAFKA_BROKERS:-$HOST:$KAFKA_PORT}" \
    S3_ENDPOINT "${S3_ENDPOINT_OVERRIDE:-$S3_ENDPOINT}" \
    AWS_ENDPOINT_URL "${AWS_ENDPOINT_URL:-$S3_ENDPOINT}" \
    AWS_REGION "${AWS_REGION:-$S3_REGION}" \
    AWS_ACCESS_KEY_ID "${AWS_ACCESS_KEY_ID:-$S3_KEY}" \
    AWS_SECRET_ACCESS_KEY "${AWS_SECRET_ACCESS_KEY:-$S3_SECRET}"
}

run_edihub_init() {
  if [[ ! -x $EDIHUB_BIN ]]; then
    log "edihub: $EDIHUB_BIN not built yet: \`edihub init\` still has to run"
    log "        (cargo build -p edihub && $0 up, or run it by hand) to apply migrations,"
    log "        create the topics and the Object Lock bucket"
    return 0
  fi
  log "edihub: running $EDIHUB_BIN init"
  (
    eval "$(print_env)"
    "$EDIHUB_BIN" init
  ) || die "edihub: \`$EDIHUB_BIN init\` failed"
}

# ---------------------------------------------------------------- commands

lock() {
  exec 9>"$LOCAL_DIR/stack.lock"
  flock -w 3000 9 || die "another stack.sh up/down holds $LOCAL_DIR/stack.lock"
}

cmd_up() {
  tansu_storage_url >/dev/null
  lock
  ensure_postgres
  ensure_venv
  start_moto
  ensure_tansu_binary
  start_tansu
  ensure_topics
  run_edihub_init
  log "stack: up (status: $0 status)"
}

cmd_down() {
  lock
  local rc=0
  stop_component tansu "$TANSU_PAT" "$KAFKA_PORT" || rc=1
  stop_component moto moto_server "$S3_PORT" || rc=1
  log "postgres: left running (it belongs to the machine)"
  return "$rc"
}

# status_of NAME PATTERN PORT: sets state and pid for one of our daemons.
status_of() {
  local owner
  pid=$(live_pid "$1" "$2")
  if [[ -n $pid ]] && port_open "$3"; then
    state=up
  elif port_open "$3"; then
    owner=$(port_owner "$3")
    if pid_matches "$owner" "$2"; then
      state=up pid=$owner # running without our pid file; `up` adopts it
    else
      state=busy pid=${owner:-?} # the port is held by another program
    fi
  else
    state=down pid=
  fi
}

cmd_status() {
  local rc=0 state pid info logfile storage
  # postgres
  info=$(pg_cluster_info)
  pid=${info%% *}
  logfile=${info#* }
  if command -v pg_isready >/dev/null && pg_ready; then state=up; else state=down rc=1; fi
  printf '%-8s %-4s %-32s pid=%-8s log=%s\n' postgres "$state" "$HOST:$PG_PORT" "${pid:--}" "${logfile:--}"
  # moto
  status_of moto moto_server "$S3_PORT"
  [[ $state == up ]] || rc=1
  printf '%-8s %-4s %-32s pid=%-8s log=%s\n' moto "$state" "$S3_ENDPOINT" "${pid:--}" "$LOG_DIR/moto.log"
  # tansu
  status_of tansu "$TANSU_PAT" "$KAFKA_PORT"
  [[ $state == up ]] || rc=1
  storage=
  if [[ $state == up ]]; then
    storage=$(cmdline_of "$pid" | grep -o -- '--storage-engine [^ ]*' | cut -d' ' -f2 || true)
  fi
  printf '%-8s %-4s %-32s pid=%-8s log=%s\n' tansu "$state" "$HOST:$KAFKA_PORT${storage:+ ($storage)}" "${pid:--}" "$LOG_DIR/tansu.log"
  return "$rc"
}

main() {
  local cmd=${1:-}
  case $cmd in
    up | down | status) ;;
    env)
      print_env
      return 0
      ;;
    *)
      printf 'usage: %s up|down|status|env\n' "$0" >&2
      exit 2
      ;;
  esac
  mkdir -p "$LOG_DIR" "$RUN_DIR"
  if [[ $cmd == up ]]; then
    cmd_up # under errexit: any failing step stops `up`
  else
    # status and down report through their exit code; that is no script failure.
    # (Only these two may run in an || context, which switches errexit off.)
    local rc=0
    "cmd_$cmd" || rc=$?
    exit "$rc"
  fi
}

main "$@"
