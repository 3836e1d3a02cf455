#!/usr/bin/env bash
# kizuna-server benchmarks (`just bench`). Prints figures; traffic only to 127.0.0.1; bounded.
#  1. GET /api/user/my-info (with a session) vs GET /healthz, wrk, 256 connections, on SQLite and
#     on PostgreSQL (127.0.0.1:5432, a scratch database dropped afterwards).
#  2. Image proxy, cold cache, kizuna-server's /_ipx against the npm ipx package over the very same
#     stored files (uploaded through POST /api/file/tempUpload, so stored as the server stores
#     them): requests/s and peak RSS (VmHWM) of each process, in two cases:
#     a. the profile page as the web app really serves it: 1280 px photos (what the web app
#        uploads, web/src/lib/image-resize.ts), and for each the URLs of web/src/components/image.tsx
#        at the profile grid's size: the srcset (densities 1 and 2, breakpoints up to 2x, webp)
#        and the 10x10 q50 placeholder;
#     b. 12 MP JPEGs -> w_400,f_webp,q_80 (a camera original; also with upload-time previews).
# Knobs: BENCH_DURATION (10s), BENCH_CONNECTIONS (256), BENCH_IMAGES (8 distinct photos per case),
#        BENCH_COPIES (12 uploads of each 12 MP photo: distinct file ids, so every request is a
#        cold variant), BENCH_PROFILE_COPIES (40 uploads of each 1280 px photo),
#        BENCH_PARALLEL (4 requests in flight for the image runs), BENCH_ROUNDS (3 runs of each
#        image contender, medians reported), BENCH_SKIP_IMAGES=1 (API only),
#        BENCH_SKIP_API=1 (images only), BENCH_CASES ("profile 12mp", the image cases to run),
#        BENCH_BASELINE (another kizuna-server binary, e.g. one built from an earlier commit: its
#        proxy runs as one more contender in the same rounds, so a change is measured against
#        what it replaces on the same machine at the same time).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
BIN=$TARGET/release/kizuna-server
GEN=$TARGET/release/examples/bench_images
DURATION=${BENCH_DURATION:-10s}
CONNS=${BENCH_CONNECTIONS:-256}
IMAGES=${BENCH_IMAGES:-8}
COPIES=${BENCH_COPIES:-12}
PROFILE_COPIES=${BENCH_PROFILE_COPIES:-40}
CASES=${BENCH_CASES:-profile 12mp}
BASELINE=${BENCH_BASELINE:-}
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
start_server() { # label port data_dir [database_url]   (SERVER_BIN: another binary than $BIN)
  mkdir -p "$3"
  local bin=${SERVER_BIN:-$BIN}
  if [[ -n "${4:-}" ]]; then
    RUST_LOG=warn KIZUNA_BIND=127.0.0.1:$2 KIZUNA_DATA_DIR=$3 KIZUNA_WEB_DIR=$WORK/no-web DATABASE_URL=$4 "$bin" serve >"$WORK/$1.log" 2>&1 &
  else
    RUST_LOG=warn KIZUNA_BIND=127.0.0.1:$2 KIZUNA_DATA_DIR=$3 KIZUNA_WEB_DIR=$WORK/no-web "$bin" serve >"$WORK/$1.log" 2>&1 &
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
if [[ ! -d "$ROOT/server/bench/ipx/node_modules/ipx" ]]; then
  (cd "$ROOT/server/bench/ipx" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
fi
ipx_version=$(node -p 'require("'"$ROOT"'/server/bench/ipx/node_modules/ipx/package.json").version')

# Uploads every JPEG of $1 $2 times into a server on data dir $3 and copies the stored bytes (the
# re-encoded files, exactly what the proxy reads) to $4 for ipx. Sets IDS.
IDS=()
upload_all() { # src_dir copies data_dir ipx_dir
  local port base token id f
  port=$(free_port)
  base=http://127.0.0.1:$port
  start_server "upload-$(basename "$3")" "$port" "$3"
  token=$(login "$base")
  # The owner's session stays valid on every server started later on this data dir (sessions
  # live in its database): the proxy serves a file to its owner only.
  OWNER_TOKEN=$token
  IDS=()
  for f in "$1"/*.jpg; do
    for _ in $(seq 1 "$2"); do
      id=$(curl -fs -H "Authorization: Bearer $token" -F "file=@$f;type=image/jpeg" "$base/api/file/tempUpload" |
        python3 -c 'import json,sys; print(json.load(sys.stdin)["fileName"])')
      IDS+=("$id")
    done
  done
  stop_pid "$SERVER_PID"
  mkdir -p "$4"
  for id in "${IDS[@]}"; do cp "$3/files/${id:0:2}/$id" "$4/$id.jpg"; done
}

# One timed run: every stored file x every modifier set of the case, PARALLEL requests in flight.
run_images() { # key label pid url_prefix url_suffix [curl header]
  local key=$1 label=$2 pid=$3 prefix=$4 suffix=$5 cfg=$WORK/urls-$1.txt id mods n
  : >"$cfg"
  for id in "${IDS[@]}"; do
    for mods in "${MODS[@]}"; do
      if [[ $prefix == *"/_ipx/" ]]; then
        printf 'url = "%s%s/api/file/fetch/%s"\noutput = "/dev/null"\n' "$prefix" "$mods" "$id" >>"$cfg"
      else
        printf 'url = "%s%s/%s%s"\noutput = "/dev/null"\n' "$prefix" "$mods" "$id" "$suffix" >>"$cfg"
      fi
    done
  done
  n=$((${#IDS[@]} * ${#MODS[@]}))
  local start end codes ok hwm
  start=$(date +%s.%N)
  codes=$(curl -s --parallel --parallel-max "$PARALLEL" -K "$cfg" ${6:+-H "$6"} -w '%{http_code} %{content_type}\n' 2>/dev/null)
  end=$(date +%s.%N)
  ok=$(grep -c '^200 image/webp' <<<"$codes" || true)
  hwm=$(awk '/VmHWM/ {print $2}' "/proc/$pid/status")
  python3 -c "import sys; n,ok,t,h=int(sys.argv[1]),int(sys.argv[2]),float(sys.argv[4])-float(sys.argv[3]),int(sys.argv[5]); print(f'    {sys.argv[6]:<32} {n/t:8.1f} req/s   peak RSS {h/1024:7.1f} MB   ({ok}/{n} webp 200s in {t:.1f} s)')" \
    "$n" "$ok" "$start" "$end" "$hwm" "$label"
  if [[ $ok -ne $n ]]; then echo "    not every answer was a 200 WebP: see $cfg" >&2; exit 1; fi
  echo "$CASE $key $n $start $end $hwm" >>"$WORK/images.txt"
}

# Every contender runs BENCH_ROUNDS times in a fresh process (so its peak RSS is the proxy's
# alone, and every kizuna round starts with an empty variant cache), in a rotating order so that
# none always goes first or last on a machine whose speed drifts; the summary takes medians.
kizuna_round() { # key label previews [binary]
  local port
  port=$(free_port)
  rm -rf "$DATA/cache"
  SERVER_BIN=${4:-} KIZUNA_IPX_PREVIEWS=$3 start_server "img-$CASE-$1" "$port" "$DATA"
  run_images "$1" "$2" "$SERVER_PID" "http://127.0.0.1:$port/_ipx/" "" "Authorization: Bearer $OWNER_TOKEN"
  stop_pid "$SERVER_PID"
}
ipx_round() {
  local ipx_port
  ipx_port=$(free_port)
  node "$ROOT/server/bench/ipx/serve.mjs" "$IPX_DIR" "$ipx_port" >"$WORK/ipx.log" 2>&1 &
  IPX_PID=$!
  PIDS+=("$IPX_PID")
  for _ in $(seq 1 200); do grep -qs "ipx on" "$WORK/ipx.log" && break; sleep 0.05; done
  run_images ipx "npm ipx $ipx_version (sharp)" "$IPX_PID" "http://127.0.0.1:$ipx_port/" ".jpg"
  stop_pid "$IPX_PID"
}
run_rounds() { # contenders...: "key|label|previews[|binary]" or "ipx"
  local contenders=("$@") round i c key label previews
  # Let the writes of the upload phase reach the disk before anything is timed.
  sync
  sleep 1
  for round in $(seq 0 $((ROUNDS - 1))); do
    echo "  round $((round + 1)) of $ROUNDS:"
    for i in $(seq 0 $((${#contenders[@]} - 1))); do
      c=${contenders[$(((round + i) % ${#contenders[@]}))]}
      if [[ $c == ipx ]]; then
        ipx_round
      else
        IFS='|' read -r key label previews bin <<<"$c"
        kizuna_round "$key" "$label" "$previews" "$bin"
      fi
    done
  done
}
summary() { # case "key|label"...
  python3 - "$WORK/images.txt" "$@" <<'PY'
import statistics, sys
case, labels = sys.argv[2], sys.argv[3:]
runs = {}
for line in open(sys.argv[1]):
    c, key, n, t0, t1, hwm = line.split()
    if c == case:
        runs.setdefault(key, []).append((int(n) / (float(t1) - float(t0)), int(hwm)))
def median(key):
    return statistics.median(r for r, _ in runs[key]), statistics.median(h for _, h in runs[key])
i_rps, i_hwm = median("ipx")
print(f"  medians of {len(runs['ipx'])} rounds:")
pairs = [label.split("|", 1) for label in labels]
for key, label in pairs + [["ipx", "npm ipx (sharp)"]]:
    rps, hwm = median(key)
    print(f"  {label:<34} {rps:8.1f} req/s   peak RSS {hwm / 1024:7.1f} MB")
for key, label in pairs:
    k_rps, k_hwm = median(key)
    print(f"  {label:<34} throughput kizuna/ipx = {k_rps / i_rps:.2f}x (target >= 1.5x); peak RSS kizuna/ipx = {k_hwm / i_hwm:.2f}x (target <= 0.5x)")
PY
}

for CASE in $CASES; do
  case $CASE in
  profile)
    # What image.tsx asks for at the profile grid's <Image width height> (profile-page.tsx),
    # read from the web sources so that the bench follows the app.
    mapfile -t MODS < <(python3 - "$ROOT/web/src" <<'PY'
import math, re, sys
src = sys.argv[1]
page = open(f"{src}/features/profile/components/profile-page.tsx").read()
url = open(f"{src}/lib/image-url.ts").read()
m = re.search(r"<Image\b[^>]*?width=\{(\d+)\}\s+height=\{(\d+)\}", page)
bps = re.search(r"IMAGE_BREAKPOINTS\s*=\s*\{([^}]*)\}", url)
dens = re.search(r"IMAGE_DENSITIES\s*=\s*\[([^\]]*)\]", url)
if not (m and bps and dens):
    sys.exit("bench: cannot read the profile image sizes from the web sources")
width, height = int(m.group(1)), int(m.group(2))
breakpoints = [int(v) for v in re.findall(r":\s*(\d+)", bps.group(1))]
densities = [int(v) for v in re.findall(r"\d+", dens.group(1))]
widths = {width * d for d in densities} | {bp for bp in breakpoints if bp <= width * 2}
ratio = height / width
for w in sorted(widths):
    print(f"s_{w}x{math.floor(w * ratio + 0.5)},fit_cover,f_webp")
print("s_10x10,fit_cover,f_webp,q_50")
PY
)
    echo "== 2a. Image proxy, cold cache: the profile page over 1280 px uploads =="
    # Phone photos as the web app uploads them: the longest side 1280 px, JPEG q82, portrait
    # and landscape.
    half=$(((IMAGES + 1) / 2))
    "$GEN" "$WORK/src-profile" "$half" 960 1280 82 >/dev/null
    "$GEN" "$WORK/src-profile" "$((IMAGES - half))" 1280 960 82 >/dev/null
    DATA=$WORK/img-profile
    IPX_DIR=$WORK/ipx-profile
    upload_all "$WORK/src-profile" "$PROFILE_COPIES" "$DATA" "$IPX_DIR"
    echo "  ${#IDS[@]} stored files ($half photos 960x1280 and $((IMAGES - half)) 1280x960, x $PROFILE_COPIES uploads, $(du -sh "$IPX_DIR" | cut -f1)), $PARALLEL requests in flight"
    echo "  per file, cold: $(IFS=' '; echo "${MODS[*]}")"
    if [[ -n $BASELINE ]]; then
      run_rounds "kizuna|kizuna-server /_ipx|true" ipx "baseline|baseline /_ipx|true|$BASELINE"
      summary profile "kizuna|kizuna-server /_ipx" "baseline|baseline /_ipx"
    else
      run_rounds "kizuna|kizuna-server /_ipx|true" ipx
      summary profile "kizuna|kizuna-server /_ipx"
    fi
    ;;
  12mp)
    MODS=("w_400,f_webp,q_80")
    echo "== 2b. Image proxy, cold cache: 12 MP JPEG -> ${MODS[0]} =="
    "$GEN" "$WORK/src-12mp" "$IMAGES" >/dev/null
    DATA=$WORK/img-12mp
    IPX_DIR=$WORK/ipx-12mp
    upload_all "$WORK/src-12mp" "$COPIES" "$DATA" "$IPX_DIR"
    echo "  ${#IDS[@]} stored files ($IMAGES distinct 4000x3000 photos x $COPIES uploads, $(du -sh "$IPX_DIR" | cut -f1)), $PARALLEL requests in flight"
    # kizuna-full: without the upload-time previews, every request decodes the stored 12 MP file,
    # as ipx does (the like-for-like comparison). kizuna: as deployed (the proxy decodes the
    # 1600 px preview made at upload when it suffices).
    if [[ -n $BASELINE ]]; then
      run_rounds "kizuna-full|kizuna-server /_ipx (12 MP file)|false" ipx "kizuna|kizuna-server /_ipx (previews)|true" \
        "baseline-full|baseline /_ipx (12 MP file)|false|$BASELINE"
      summary 12mp "kizuna-full|kizuna-server /_ipx (12 MP file)" "kizuna|kizuna-server /_ipx (previews)" \
        "baseline-full|baseline /_ipx (12 MP file)"
    else
      run_rounds "kizuna-full|kizuna-server /_ipx (12 MP file)|false" ipx "kizuna|kizuna-server /_ipx (previews)|true"
      summary 12mp "kizuna-full|kizuna-server /_ipx (12 MP file)" "kizuna|kizuna-server /_ipx (previews)"
    fi
    ;;
  *) echo "unknown bench case $CASE (expected profile, 12mp)" >&2; exit 1 ;;
  esac
  echo
done
