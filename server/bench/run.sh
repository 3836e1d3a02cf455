#!/usr/bin/env bash
# kizuna-server benchmarks (`just bench`). Prints figures, each beside the target it is held to
# (issue 46); traffic only to 127.0.0.1; bounded. Fails (exit 1, a line starting "FAIL:" saying
# which run and how many) when any timed answer is not the one it means to time: a wrk run with a
# single answer of status >= 400 or a socket error (connect, read, write, timeout), an image
# request not answered 200 WebP, an upload or login of the set-up refused. Exits 1 as well, after
# every run, when a figure misses its target ("MISSED" beside it) — on a busy machine that is to be
# expected; the figures count only from a quiet one.
#  1. GET /api/user/my-info (with a session) vs GET /healthz, wrk, 256 connections, on SQLite and
#     on PostgreSQL (127.0.0.1:5432, a scratch database dropped afterwards). Target: my-info >= 85 %
#     of healthz on each, every answer 2xx. Within a real client's limits: the server runs as
#     behind a reverse proxy (KIZUNA_TRUSTED_PROXY_HEADER=X-Forwarded-For, its real setting; wrk on
#     127.0.0.1 is the proxy), and server/bench/wrk.lua gives every request a client address of
#     its own (1,024 per wrk thread, so none nears the 128 requests in flight a client address
#     may have) and my-info the sessions of BENCH_MEMBERS members in turn. No limit is changed.
#     Each member's session is read from the database about once a second (the session cache's
#     SESSION_CACHE_TTL) and proved from memory in between, as a member's burst of requests is;
#     the members have no profile, so a hit sends no statement at all.
#  2. Image proxy, cold cache, kizuna-server's /_ipx against the npm ipx package over the very same
#     stored files (uploaded through POST /api/file/tempUpload, so stored as the server stores
#     them): requests/s and peak RSS (VmHWM) of each process, in two cases:
#     a. the profile page as the web app really serves it: 1280 px photos (what the web app
#        uploads, web/src/lib/image-resize.ts), and for each the URLs of web/src/components/image.tsx
#        at the profile grid's size: the srcset (densities 1 and 2, breakpoints up to 2x, webp)
#        and the 10x10 q50 placeholder. Target: kizuna >= 2x ipx's requests/s at <= 0.25x its
#        peak RSS, every timed answer 200;
#     b. 12 MP JPEGs -> w_400,f_webp,q_80 (a camera original; also with upload-time previews);
#        printed for information, against the same figures (the app never sends such uploads).
#     Within a real member's limits: the files belong to several members (the proxy serves a
#     file to its owner only), each holding no more than an unclaimed-upload quota allows
#     (rules::UNCLAIMED_UPLOADS_WITHOUT_PROFILE files, UNCLAIMED_UPLOAD_BYTES_WITHOUT_PROFILE
#     bytes, under rules::UPLOADS_PER_MINUTE a minute) and causing no more renders in a round
#     than rules::IMAGE_RENDERS_PER_MINUTE (each round is a fresh process on SQLite, whose
#     allowances live in its memory); each request carries its owner's session.
# Knobs: BENCH_DURATION (10s), BENCH_CONNECTIONS (256), BENCH_MEMBERS (32 sessions for my-info),
#        BENCH_IMAGES (8 distinct photos per case),
#        BENCH_COPIES (12 uploads of each 12 MP photo: distinct file ids, so every request is a
#        cold variant), BENCH_PROFILE_COPIES (40 uploads of each 1280 px photo),
#        BENCH_PARALLEL (4 requests in flight for the image runs), BENCH_ROUNDS (3 runs of each
#        image contender, medians reported), BENCH_SKIP_IMAGES=1 (API only),
#        BENCH_SKIP_API=1 (images only), BENCH_CASES ("profile 12mp", the image cases to run),
#        BENCH_BIN (the server binary, default the release build: a debug one for a quick check of
#        the script only, its figures mean nothing),
#        BENCH_BASELINE (another kizuna-server binary, e.g. one built from an earlier commit: its
#        proxy runs as one more contender in the same rounds, so a change is measured against
#        what it replaces on the same machine at the same time).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
BIN=${BENCH_BIN:-$TARGET/release/kizuna-server}
GEN=$(dirname "$BIN")/examples/bench_images
DURATION=${BENCH_DURATION:-10s}
CONNS=${BENCH_CONNECTIONS:-256}
MEMBERS=${BENCH_MEMBERS:-32}
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

# A timed answer that is not the one the run means to time: say which run and how many, stop.
fail() { echo "FAIL: $*" >&2; exit 1; }
# Targets missed, reported (exit 1) once every run has printed its figures; targets held.
MISSED=()
HELD=0

# Every server of the bench runs as behind a reverse proxy (its real setting, nothing bench-only):
# the bench's clients on 127.0.0.1 play the proxy and say which client each request is from in
# X-Forwarded-For, so the limits per client address apply to the clients a real proxy would
# forward, not to the one loopback address. A request without the header counts as 127.0.0.1's.
SERVER_PID=""
start_server() { # label port data_dir [database_url]   (SERVER_BIN: another binary than $BIN)
  mkdir -p "$3"
  local bin=${SERVER_BIN:-$BIN}
  local env=(RUST_LOG=warn KIZUNA_BIND=127.0.0.1:$2 KIZUNA_DATA_DIR=$3 KIZUNA_WEB_DIR=$WORK/no-web
    KIZUNA_TRUSTED_PROXY_HEADER=X-Forwarded-For)
  if [[ -n "${4:-}" ]]; then env+=(DATABASE_URL=$4); fi
  env "${env[@]}" "$bin" serve >"$WORK/$1.log" 2>&1 &
  SERVER_PID=$!
  PIDS+=("$SERVER_PID")
  wait_http "http://127.0.0.1:$2/healthz"
}

stop_pid() { kill "$1" 2>/dev/null || true; wait "$1" 2>/dev/null || true; }

# Makes `count` members on base (mock LINE users, each logging in from an address of its own) and
# writes their session tokens to `file`, one a line. Any answer but a 2xx fails the run.
login_members() { # base count file
  python3 - "$@" <<'PY' || exit 1
import json, secrets, sys, urllib.error, urllib.request
base, count, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
def post(i, path, body, headers):
    req = urllib.request.Request(base + path, data=json.dumps(body).encode(), method="POST",
                                 headers={"content-type": "application/json", **headers})
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.read()
    except urllib.error.HTTPError as e:
        sys.exit(f"FAIL: set-up: bench member {i + 1} of {count}: POST {path} answered {e.code}: {e.read()[:300]!r}")
tokens = []
for i in range(count):
    user = "U" + secrets.token_hex(16)
    xff = {"X-Forwarded-For": f"10.255.{i // 256 % 256}.{i % 256}"}
    post(i, "/__mock/line/users", {"userId": user, "displayName": "Bench", "friend": True}, {})
    token = json.loads(post(i, "/__mock/line/id-token", {"userId": user}, {}))["idToken"]
    login = post(i, "/api/user/login", {"account": user, "password": user}, {"X-Line-Id-Token": token, **xff})
    tokens.append(json.loads(login)["token"])
open(out, "w").write("".join(t + "\n" for t in tokens))
PY
}

# The answer of one request must be exactly 200 (wrk counts only statuses above 399 as errors, so
# this catches a redirect before the timed run). Also warms the sessions, JWKS and pools.
check_200() { # what url [header]
  local code
  code=$(curl -s -o /dev/null -w '%{http_code}' ${3:+-H "$3"} "$2")
  [[ $code == 200 ]] || fail "$1 answers $code before it is timed, not 200 ($2)"
}

declare -A RPS
wrk_run() { # key label url [tokens_file]
  local out=$WORK/wrk-$1.txt line requests non2xx sockets
  wrk -t2 -c"$CONNS" -d"$DURATION" --latency -s "$ROOT/server/bench/wrk.lua" "$3" ${4:+-- "$4"} >"$out"
  local rps p99
  rps=$(awk '/^Requests\/sec/ {print $2}' "$out")
  p99=$(awk '$1=="99%" {print $2}' "$out")
  line=$(grep '^bench-answers ' "$out") || fail "$1: wrk printed no count of its answers"
  # bench-answers requests=N non2xx=N connect=N read=N write=N timeout=N
  read -r requests non2xx sockets < <(awk -F'[ =]' '{print $3, $5, $7 + $9 + $11 + $13}' <<<"$line")
  RPS[$1]=$rps
  printf '  %-34s %10s req/s   p99 %9s  %s answers, %s not 2xx, %s socket errors\n' "$2" "$rps" "$p99" "$requests" "$non2xx" "$sockets"
  if [[ $non2xx != 0 || $sockets != 0 || $requests == 0 ]]; then
    grep -E 'Non-2xx|Socket errors' "$out" | sed 's/^/    wrk: /' >&2 || true
    fail "$1 ($2): $non2xx of $requests timed answers not 2xx and $sockets socket errors (${line#bench-answers })"
  fi
}

api_bench() { # label [database_url]
  local port base tokens=$WORK/tokens-$1.txt token
  port=$(free_port)
  base=http://127.0.0.1:$port
  start_server "api-$1" "$port" "$WORK/api-$1" "${2:-}"
  login_members "$base" "$MEMBERS" "$tokens"
  check_200 "$1 GET /healthz" "$base/healthz"
  while read -r token; do
    check_200 "$1 GET /api/user/my-info" "$base/api/user/my-info" "Authorization: Bearer $token"
  done <"$tokens"
  echo "$1 ($CONNS connections, $DURATION each, wrk -t2; every request from its own X-Forwarded-For address, my-info as $MEMBERS members in turn):"
  wrk_run "$1-health" "GET /healthz" "$base/healthz"
  wrk_run "$1-myinfo" "GET /api/user/my-info" "$base/api/user/my-info" "$tokens"
  HELD=$((HELD + 1))
  if ! python3 -c "import sys; a,b=float(sys.argv[1]),float(sys.argv[2]); r=b/a*100; print(f'  my-info / healthz = {r:.0f} %  (target >= 85 %, every answer 2xx: met)' if r >= 85 else f'  my-info / healthz = {r:.0f} %  (target >= 85 %, every answer 2xx: MISSED)'); sys.exit(0 if r >= 85 else 3)" \
    "${RPS[$1-health]}" "${RPS[$1-myinfo]}"; then
    MISSED+=("my-info / healthz on $1")
  fi
  stop_pid "$SERVER_PID"
}

# At the end: every run printed its figures; a missed target fails the run.
finish() {
  if [[ ${#MISSED[@]} -gt 0 ]]; then
    local joined
    joined=$(printf '%s; ' "${MISSED[@]}")
    echo "targets MISSED: ${joined%; } (every timed answer was the one meant)"
    exit 1
  fi
  if [[ $HELD -eq 0 ]]; then
    echo "no target held in this run (only figures for information; every timed answer was the one meant)"
  else
    echo "every target met ($HELD held; every timed answer was the one meant)"
  fi
  exit 0
}

if [[ -z "${BENCH_SKIP_API:-}" ]]; then
  echo "== 1. API: my-info vs healthz =="
  api_bench sqlite
  PGDB=kizuna_bench_$$
  psql "$PG_ADMIN/postgres" -qAtc "CREATE DATABASE $PGDB" >/dev/null
  api_bench postgresql "$PG_ADMIN/$PGDB"
  echo
fi

[[ -n "${BENCH_SKIP_IMAGES:-}" ]] && finish
if [[ ! -d "$ROOT/server/bench/ipx/node_modules/ipx" ]]; then
  (cd "$ROOT/server/bench/ipx" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
fi
ipx_version=$(node -p 'require("'"$ROOT"'/server/bench/ipx/node_modules/ipx/package.json").version')

# How many files one member may own here: within the unclaimed-upload quota of a member without a
# profile (files, and bytes at twice the largest source file, for the re-encode), the uploads of a
# minute, and the renders a member may cause in a minute (every file costs one per modifier set in
# a round). Read from kizuna-core's rules, so the bench follows them.
files_per_member() { # src_dir modifier_sets
  python3 - "$ROOT/core/src/rules.rs" "$1" "$2" <<'PY'
import os, re, sys
rules, src, mods = open(sys.argv[1]).read(), sys.argv[2], int(sys.argv[3])
def rule(name):
    m = re.search(rf"pub const {name}: u\d+ = ([\d_ *]+);", rules)
    if not m:
        sys.exit(f"FAIL: set-up: cannot read {name} from core/src/rules.rs")
    n = 1
    for part in m.group(1).replace("_", "").split("*"):
        n *= int(part)
    return n
largest = max(os.path.getsize(os.path.join(src, f)) for f in os.listdir(src) if f.endswith(".jpg"))
print(max(1, min(rule("UNCLAIMED_UPLOADS_WITHOUT_PROFILE"), rule("UPLOADS_PER_MINUTE"),
                 rule("IMAGE_RENDERS_PER_MINUTE") // mods,
                 rule("UNCLAIMED_UPLOAD_BYTES_WITHOUT_PROFILE") // (2 * largest))))
PY
}

# Uploads every JPEG of $1 $2 times into a server on data dir $3, as several members each within
# their allowances (files_per_member), and copies the stored bytes (the re-encoded files, exactly
# what the proxy reads) to $4 for ipx. Sets IDS, OWNERS (each file's owner, an index into TOKENS)
# and TOKENS. Any upload not answered 200 fails the run.
IDS=()
OWNERS=()
TOKENS=()
upload_all() { # src_dir copies data_dir ipx_dir
  local port base id f per total members n=0 code body=$WORK/upload-answer.json
  per=$(files_per_member "$1" "${#MODS[@]}")
  total=$(( $(find "$1" -maxdepth 1 -name '*.jpg' | wc -l) * $2 ))
  members=$(( (total + per - 1) / per ))
  port=$(free_port)
  base=http://127.0.0.1:$port
  start_server "upload-$(basename "$3")" "$port" "$3"
  login_members "$base" "$members" "$WORK/tokens-$(basename "$3").txt"
  # The owners' sessions stay valid on every server started later on this data dir (sessions
  # live in its database): the proxy serves a file to its owner only.
  mapfile -t TOKENS <"$WORK/tokens-$(basename "$3").txt"
  IDS=()
  OWNERS=()
  for f in "$1"/*.jpg; do
    for _ in $(seq 1 "$2"); do
      local owner=$((n / per))
      code=$(curl -s -o "$body" -w '%{http_code}' -H "Authorization: Bearer ${TOKENS[$owner]}" \
        -H "X-Forwarded-For: 10.255.$((owner / 256 % 256)).$((owner % 256))" \
        -F "file=@$f;type=image/jpeg" "$base/api/file/tempUpload")
      [[ $code == 200 ]] || fail "set-up: upload $((n + 1)) of $total (member $((owner + 1)) of $members, $per files each) answered $code: $(head -c 300 "$body")"
      id=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["fileName"])' "$body")
      IDS+=("$id")
      OWNERS+=("$owner")
      n=$((n + 1))
    done
  done
  UPLOAD_NOTE="$members members, $per files each"
  stop_pid "$SERVER_PID"
  mkdir -p "$4"
  for id in "${IDS[@]}"; do cp "$3/files/${id:0:2}/$id" "$4/$id.jpg"; done
}

# One timed run: every stored file x every modifier set of the case, PARALLEL requests in flight;
# for kizuna each request with its file's owner's session (one curl group per owner).
run_images() { # key label pid url_prefix url_suffix
  local key=$1 label=$2 pid=$3 prefix=$4 suffix=$5 cfg=$WORK/urls-$1.txt i id mods n owner=-1
  : >"$cfg"
  for i in "${!IDS[@]}"; do
    id=${IDS[$i]}
    if [[ $prefix == *"/_ipx/" && ${OWNERS[$i]} != "$owner" ]]; then
      [[ $owner == -1 ]] || echo "next" >>"$cfg"
      owner=${OWNERS[$i]}
      printf 'header = "Authorization: Bearer %s"\nwrite-out = "%%{http_code} %%{content_type}\\n"\n' "${TOKENS[$owner]}" >>"$cfg"
    elif [[ $i == 0 ]]; then
      printf 'write-out = "%%{http_code} %%{content_type}\\n"\n' >>"$cfg"
    fi
    for mods in "${MODS[@]}"; do
      if [[ $prefix == *"/_ipx/" ]]; then
        printf 'url = "%s%s/api/file/fetch/%s"\noutput = "/dev/null"\n' "$prefix" "$mods" "$id" >>"$cfg"
      else
        printf 'url = "%s%s/%s%s"\noutput = "/dev/null"\n' "$prefix" "$mods" "$id" "$suffix" >>"$cfg"
      fi
    done
  done
  n=$((${#IDS[@]} * ${#MODS[@]}))
  local start end codes ok hwm idle
  # The peak before any image request: what the process holds started and idle.
  idle=$(awk '/VmHWM/ {print $2}' "/proc/$pid/status")
  start=$(date +%s.%N)
  codes=$(curl -s --parallel --parallel-max "$PARALLEL" -K "$cfg" 2>/dev/null || true)
  end=$(date +%s.%N)
  ok=$(grep -c '^200 image/webp' <<<"$codes" || true)
  hwm=$(awk '/VmHWM/ {print $2}' "/proc/$pid/status")
  python3 -c "import sys; n,ok,t,h,i=int(sys.argv[1]),int(sys.argv[2]),float(sys.argv[4])-float(sys.argv[3]),int(sys.argv[5]),int(sys.argv[7]); print(f'    {sys.argv[6]:<32} {n/t:8.1f} req/s   peak RSS {h/1024:7.1f} MB (idle {i/1024:5.1f})   ({ok}/{n} webp 200s in {t:.1f} s)')" \
    "$n" "$ok" "$start" "$end" "$hwm" "$label" "$idle"
  if [[ $ok -ne $n ]]; then
    fail "case $CASE, $label: $((n - ok)) of $n timed answers not 200 WebP (answers: $(grep -v '^200 image/webp' <<<"$codes" | sort | uniq -c | awk '{printf "%s%s x %s %s", NR > 1 ? "; " : "", $1, $2, $3}'))"
  fi
  echo "$CASE $key $n $start $end $hwm" >>"$WORK/images.txt"
}

# Every contender runs BENCH_ROUNDS times in a fresh process (so its peak RSS is the proxy's
# alone, and every kizuna round starts with an empty variant cache), in a rotating order so that
# none always goes first or last on a machine whose speed drifts; the summary takes medians.
kizuna_round() { # key label previews [binary]
  local port
  port=$(free_port)
  # An empty variant cache without deleting the last round's: this disk is ext4 without a journal,
  # which skips inodes deleted in the last seconds when it makes a new file (the kernel's
  # `recently_deleted`), so 1,280 deletions just before the round made every variant stored in it
  # scan past them (half the tokio workers' time in `perf`). Set aside, they go with $WORK.
  [[ ! -d $DATA/cache ]] || mv "$DATA/cache" "$(mktemp -d "$WORK/old-cache.XXXXXX")/"
  SERVER_BIN=${4:-} KIZUNA_IPX_PREVIEWS=$3 start_server "img-$CASE-$1" "$port" "$DATA"
  run_images "$1" "$2" "$SERVER_PID" "http://127.0.0.1:$port/_ipx/" ""
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
# Medians of the rounds, and each contender against ipx. The one named `held` (the app's own
# traffic, case 2a) is held to the target: >= 2x ipx's requests/s at <= 0.25x its peak RSS; a miss
# is recorded and fails the run at the end. The others are printed for information.
summary() { # case held_key "key|label"...
  local rc=0
  python3 - "$WORK/images.txt" "$@" <<'PY' || rc=$?
import statistics, sys
case, held, labels = sys.argv[2], sys.argv[3], sys.argv[4:]
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
missed = False
for key, label in pairs:
    k_rps, k_hwm = median(key)
    speed, memory = k_rps / i_rps, k_hwm / i_hwm
    figures = f"throughput kizuna/ipx = {speed:.2f}x, peak RSS kizuna/ipx = {memory:.2f}x"
    if key == held:
        met = speed >= 2.0 and memory <= 0.25
        missed |= not met
        verdict = "met" if met else "MISSED"
        print(f"  {label:<34} {figures} (target >= 2x at <= 0.25x, every timed answer 200: {verdict})")
    else:
        print(f"  {label:<34} {figures} (for information; the target >= 2x at <= 0.25x is held on case 2a)")
sys.exit(3 if missed else 0)
PY
  [[ $2 == - ]] || HELD=$((HELD + 1))
  case $rc in
  0) ;;
  3) MISSED+=("image proxy vs ipx, case $1") ;;
  *) fail "case $1: the summary failed" ;;
  esac
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
    echo "  ${#IDS[@]} stored files ($half photos 960x1280 and $((IMAGES - half)) 1280x960, x $PROFILE_COPIES uploads by $UPLOAD_NOTE, $(du -sh "$IPX_DIR" | cut -f1)), $PARALLEL requests in flight"
    echo "  per file, cold: $(IFS=' '; echo "${MODS[*]}")"
    if [[ -n $BASELINE ]]; then
      run_rounds "kizuna|kizuna-server /_ipx|true" ipx "baseline|baseline /_ipx|true|$BASELINE"
      summary profile kizuna "kizuna|kizuna-server /_ipx" "baseline|baseline /_ipx"
    else
      run_rounds "kizuna|kizuna-server /_ipx|true" ipx
      summary profile kizuna "kizuna|kizuna-server /_ipx"
    fi
    ;;
  12mp)
    MODS=("w_400,f_webp,q_80")
    echo "== 2b. Image proxy, cold cache: 12 MP JPEG -> ${MODS[0]} =="
    "$GEN" "$WORK/src-12mp" "$IMAGES" >/dev/null
    DATA=$WORK/img-12mp
    IPX_DIR=$WORK/ipx-12mp
    upload_all "$WORK/src-12mp" "$COPIES" "$DATA" "$IPX_DIR"
    echo "  ${#IDS[@]} stored files ($IMAGES distinct 4000x3000 photos x $COPIES uploads by $UPLOAD_NOTE, $(du -sh "$IPX_DIR" | cut -f1)), $PARALLEL requests in flight"
    # kizuna-full: without the upload-time previews, every request decodes the stored 12 MP file,
    # as ipx does (the like-for-like comparison). kizuna: as deployed (the proxy decodes the
    # 1600 px preview made at upload when it suffices).
    if [[ -n $BASELINE ]]; then
      run_rounds "kizuna-full|kizuna-server /_ipx (12 MP file)|false" ipx "kizuna|kizuna-server /_ipx (previews)|true" \
        "baseline-full|baseline /_ipx (12 MP file)|false|$BASELINE"
      summary 12mp - "kizuna-full|kizuna-server /_ipx (12 MP file)" "kizuna|kizuna-server /_ipx (previews)" \
        "baseline-full|baseline /_ipx (12 MP file)"
    else
      run_rounds "kizuna-full|kizuna-server /_ipx (12 MP file)|false" ipx "kizuna|kizuna-server /_ipx (previews)|true"
      summary 12mp - "kizuna-full|kizuna-server /_ipx (12 MP file)" "kizuna|kizuna-server /_ipx (previews)"
    fi
    ;;
  *) echo "unknown bench case $CASE (expected profile, 12mp)" >&2; exit 1 ;;
  esac
  echo
done

finish
