#!/usr/bin/env bash
# kizuna-server benchmarks (`just bench`). Prints figures; traffic only to 127.0.0.1; bounded.
#  1. GET /api/user/my-info (with a session) vs GET /healthz, wrk, 256 connections, on SQLite and
#     on PostgreSQL (127.0.0.1:5432, a scratch database dropped afterwards).
#  2. Image proxy, cold cache: 12 MP JPEGs → w_400,f_webp,q_80, kizuna-server's /_ipx against the
#     npm ipx package over the same stored files: requests/s and peak RSS (VmHWM) of each process.
# Knobs: BENCH_DURATION (10s), BENCH_CONNECTIONS (256), BENCH_IMAGES (8 distinct photos),
#        BENCH_COPIES (12 uploads of each: distinct file ids, so every request is a cold variant),
#        BENCH_PARALLEL (4 requests in flight for the image runs), BENCH_ROUNDS (3 runs of each
#        image contender, medians reported), BENCH_SKIP_IMAGES=1 (API only),
#        BENCH_SKIP_API=1 (images only).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
BIN=$TARGET/release/kizuna-server
GEN=$TARGET/release/examples/bench_images
DURATION=${BENCH_DURATION:-10s}
CONNS=${BENCH_CONNECTIONS:-256}
IMAGES=${BENCH_IMAGES:-8}
COPIES=${BENCH_COPIES:-12}
PARALLEL=${BENCH_PARALLEL:-4}
ROUNDS=${BENCH_ROUNDS:-3}
PG_ADMIN=${BENCH_PG:-postgres://postgres@127.0.0.1:5432}

if ! command -v wrk >/dev/null; then
  echo "installing wrk from Debian" >&2
  sudo_cmd=""; [ "$(id -u)" = 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get install -y -qq wrk >/dev/null || { $sudo_cmd apt-get update -qq && $sudo_cmd apt-get install -y -qq wrk >/dev/null; }
fi
WORK=$(mktemp -d /tmp/kizuna-bench.XXXXXX)
PIDS=()
PGDB=""
cleanup() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
  if [[ -n "$PGDB" ]]; then psql "$PG_ADMIN/postgres" -qAtc "DROP DATABASE IF EXISTS $PGDB WITH (FORCE)" >/dev/null 2>&1 || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

wait_http() { # url
  for _ in $(seq 1 200); do curl -fs -o /dev/null "$1" && return 0; sleep 0.05; done
  echo "no answer from $1" >&2; return 1
}

SERVER_PID=""
start_server() { # label port data_dir [database_url]
  mkdir -p "$3"
  if [[ -n "${4:-}" ]]; then
    RUST_LOG=warn KIZUNA_BIND=127.0.0.1:$2 KIZUNA_DATA_DIR=$3 KIZUNA_WEB_DIR=$WORK/no-web DATABASE_URL=$4 "$BIN" serve >"$WORK/$1.log" 2>&1 &
  else
    RUST_LOG=warn KIZUNA_BIND=127.0.0.1:$2 KIZUNA_DATA_DIR=$3 KIZUNA_WEB_DIR=$WORK/no-web "$BIN" serve >"$WORK/$1.log" 2>&1 &
  fi
  SERVER_PID=$!
  PIDS+=("$SERVER_PID")
  wait_http "http://127.0.0.1:$2/healthz"
}

stop_pid() { kill "$1" 2>/dev/null || true; wait "$1" 2>/dev/null || true; }

login() { # base → prints a session token
  local base=$1 user token
  user=U$(python3 -c 'import secrets; print(secrets.token_hex(16))')
  curl -fs -o /dev/null -X POST "$base/__mock/line/users" -H 'content-type: application/json' \
    -d "{\"userId\":\"$user\",\"displayName\":\"Bench\",\"friend\":true}"
  token=$(curl -fs -X POST "$base/__mock/line/id-token" -H 'content-type: application/json' -d "{\"userId\":\"$user\"}" |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["idToken"])')
  curl -fs -X POST "$base/api/user/login" -H "X-Line-Id-Token: $token" -H 'content-type: application/json' \
    -d "{\"account\":\"$user\",\"password\":\"$user\"}" | python3 -c 'import json,sys; print(json.load(sys.stdin)["token"])'
}

declare -A RPS
wrk_run() { # key label url [header]
  local out=$WORK/wrk-$1.txt
  if [[ -n "${4:-}" ]]; then
    wrk -t2 -c"$CONNS" -d"$DURATION" --latency -H "$4" "$3" >"$out"
  else
    wrk -t2 -c"$CONNS" -d"$DURATION" --latency "$3" >"$out"
  fi
  local rps p99 errs
  rps=$(awk '/^Requests\/sec/ {print $2}' "$out")
  p99=$(awk '$1=="99%" {print $2}' "$out")
  errs=$(grep -Eo 'Non-2xx or 3xx responses: [0-9]+|Socket errors: .*' "$out" | tr '\n' ' ' || true)
  RPS[$1]=$rps
  printf '  %-34s %10s req/s   p99 %9s  %s\n' "$2" "$rps" "$p99" "$errs"
}

api_bench() { # label [database_url]
  local port base token
  port=$(free_port)
  base=http://127.0.0.1:$port
  start_server "api-$1" "$port" "$WORK/api-$1" "${2:-}"
  token=$(login "$base")
  # Warm up (JWKS, pools).
  curl -fs -o /dev/null -H "Authorization: Bearer $token" "$base/api/user/my-info"
  echo "$1 ($CONNS connections, $DURATION each, wrk -t2):"
  wrk_run "$1-health" "GET /healthz" "$base/healthz"
  wrk_run "$1-myinfo" "GET /api/user/my-info" "$base/api/user/my-info" "Authorization: Bearer $token"
  python3 -c "import sys; a,b=float(sys.argv[1]),float(sys.argv[2]); print(f'  my-info / healthz = {b/a*100:.0f} %  (target >= 50 %)')" \
    "${RPS[$1-health]}" "${RPS[$1-myinfo]}"
  stop_pid "$SERVER_PID"
}

if [[ -z "${BENCH_SKIP_API:-}" ]]; then
  echo "== 1. API: my-info vs healthz =="
  api_bench sqlite
  PGDB=kizuna_bench_$$
  psql "$PG_ADMIN/postgres" -qAtc "CREATE DATABASE $PGDB" >/dev/null
  api_bench postgresql "$PG_ADMIN/$PGDB"
  echo
fi

[[ -n "${BENCH_SKIP_IMAGES:-}" ]] && exit 0
echo "== 2. Image proxy, cold cache: 12 MP JPEG -> w_400,f_webp,q_80 =="
if [[ ! -d "$ROOT/server/bench/ipx/node_modules/ipx" ]]; then
  (cd "$ROOT/server/bench/ipx" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
fi
"$GEN" "$WORK/src" "$IMAGES" >/dev/null
port=$(free_port)
base=http://127.0.0.1:$port
start_server img-upload "$port" "$WORK/img"
token=$(login "$base")
ids=()
for f in "$WORK"/src/*.jpg; do
  for _ in $(seq 1 "$COPIES"); do
    id=$(curl -fs -H "Authorization: Bearer $token" -F "file=@$f;type=image/jpeg" "$base/api/file/tempUpload" |
      python3 -c 'import json,sys; print(json.load(sys.stdin)["fileName"])')
    ids+=("$id")
  done
done
stop_pid "$SERVER_PID"
# The very same stored bytes for ipx.
mkdir -p "$WORK/ipx-dir"
for id in "${ids[@]}"; do cp "$WORK/img/files/${id:0:2}/$id" "$WORK/ipx-dir/$id.jpg"; done
size=$(du -sh "$WORK/ipx-dir" | cut -f1)
echo "  ${#ids[@]} stored files ($IMAGES distinct 4000x3000 photos x $COPIES uploads, $size), $PARALLEL requests in flight"

run_images() { # key label pid url_prefix url_suffix [curl header]
  local key=$1 label=$2 pid=$3 prefix=$4 suffix=$5 cfg=$WORK/urls-$1.txt
  shift
  : >"$cfg"
  for id in "${ids[@]}"; do
    printf 'url = "%s%s%s"\noutput = "/dev/null"\n' "$prefix" "$id" "$suffix" >>"$cfg"
  done
  local start end codes
  start=$(date +%s.%N)
  codes=$(curl -s --parallel --parallel-max "$PARALLEL" -K "$cfg" ${5:+-H "$5"} -w '%{http_code} %{content_type}\n' 2>/dev/null)
  end=$(date +%s.%N)
  local ok hwm
  ok=$(grep -c '^200 image/webp' <<<"$codes" || true)
  hwm=$(awk '/VmHWM/ {print $2}' "/proc/$pid/status")
  python3 -c "import sys; n,ok,t,h=int(sys.argv[1]),int(sys.argv[2]),float(sys.argv[4])-float(sys.argv[3]),int(sys.argv[5]); print(f'    {sys.argv[6]:<32} {n/t:8.1f} req/s   peak RSS {h/1024:7.1f} MB   ({ok}/{n} webp 200s in {t:.1f} s)')" \
    "${#ids[@]}" "$ok" "$start" "$end" "$hwm" "$label"
  echo "$key ${#ids[@]} $start $end $hwm" >>"$WORK/images.txt"
}

# Every contender runs BENCH_ROUNDS times in a fresh process (so its peak RSS is the proxy's
# alone, and every kizuna round starts with an empty variant cache), in a rotating order so that
# none always goes first or last on a machine whose speed drifts; the summary takes medians.
# kizuna-full: without the upload-time previews, every request decodes the stored 12 MP file, as
# ipx does (the like-for-like comparison). kizuna: as deployed (the proxy decodes the 1600 px
# preview made at upload when it suffices).
ipx_version=$(node -p 'require("'"$ROOT"'/server/bench/ipx/node_modules/ipx/package.json").version')
kizuna_round() { # key label previews
  rm -rf "$WORK/img/cache"
  KIZUNA_IPX_PREVIEWS=$3 start_server "img-$1" "$port" "$WORK/img"
  run_images "$1" "$2" "$SERVER_PID" "$base/_ipx/w_400,f_webp,q_80/api/file/fetch/" "" "Authorization: Bearer $token"
  stop_pid "$SERVER_PID"
}
ipx_round() {
  local ipx_port
  ipx_port=$(free_port)
  node "$ROOT/server/bench/ipx/serve.mjs" "$WORK/ipx-dir" "$ipx_port" >"$WORK/ipx.log" 2>&1 &
  IPX_PID=$!
  PIDS+=("$IPX_PID")
  for _ in $(seq 1 200); do grep -q "ipx on" "$WORK/ipx.log" && break; sleep 0.05; done
  run_images ipx "npm ipx $ipx_version (sharp)" "$IPX_PID" "http://127.0.0.1:$ipx_port/w_400,f_webp,q_80/" ".jpg"
  stop_pid "$IPX_PID"
}
contender() {
  case $1 in
    0) kizuna_round kizuna-full "kizuna-server /_ipx (12 MP file)" false ;;
    1) ipx_round ;;
    2) kizuna_round kizuna "kizuna-server /_ipx (previews)" true ;;
  esac
}
# Let the writes of the upload phase reach the disk before anything is timed.
sync
sleep 1
for round in $(seq 0 $((ROUNDS - 1))); do
  echo "  round $((round + 1)) of $ROUNDS:"
  for i in 0 1 2; do contender $(((round + i) % 3)); done
done

python3 - "$WORK/images.txt" <<'PY'
import statistics, sys
runs = {}
for line in open(sys.argv[1]):
    key, n, t0, t1, hwm = line.split()
    runs.setdefault(key, []).append((int(n) / (float(t1) - float(t0)), int(hwm)))
def median(key):
    return statistics.median(r for r, _ in runs[key]), statistics.median(h for _, h in runs[key])
i_rps, i_hwm = median("ipx")
print(f"  medians of {len(runs['ipx'])} rounds:")
for key, label in [("kizuna-full", "kizuna-server /_ipx (12 MP file)"), ("kizuna", "kizuna-server /_ipx (previews)"), ("ipx", "npm ipx (sharp)")]:
    rps, hwm = median(key)
    print(f"  {label:<34} {rps:8.1f} req/s   peak RSS {hwm / 1024:7.1f} MB")
for key, label in [("kizuna-full", "12 MP file"), ("kizuna", "previews")]:
    k_rps, k_hwm = median(key)
    print(f"  {label:<12} throughput kizuna/ipx = {k_rps / i_rps:.2f}x (target >= 1.5x); peak RSS kizuna/ipx = {k_hwm / i_hwm:.2f}x (target <= 0.5x)")
PY
