#!/usr/bin/env bash
# The API contract check: schemathesis 4 (`--checks all`, examples + coverage + fuzzing) against a
# real kizuna-server (mock LINE, SQLite, a temp data dir) as a registered member; fails on any
# failure. `run.sh short` is the run of `just test`, `run.sh long` the one of `just contract`.
# Expects the debug server built (the just recipes build it). schemathesis lives in a virtualenv
# made once under $KIZUNA_TOOLS_DIR (default ~/.cache/kizuna), at the version pinned here.
set -euo pipefail
mode=${1:-short}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
server_bin=${CARGO_TARGET_DIR:-$root/target}/debug/kizuna-server
version=4.32.5
venv=${KIZUNA_TOOLS_DIR:-$HOME/.cache/kizuna}/schemathesis-$version

if [ ! -x "$venv/bin/st" ]; then
  echo "== installing schemathesis $version into $venv"
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check "schemathesis==$version"
fi
[ -x "$server_bin" ] || { echo "no server at $server_bin: cargo build -p kizuna-server" >&2; exit 1; }

data=$(mktemp -d)
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
base=http://127.0.0.1:$port
# Only the embedded defaults: no database, LINE setting or secret of the caller's shell leaks in.
env -u DATABASE_URL -u KIZUNA_LINE_API_BASE -u KIZUNA_LINE_CHANNEL_ID -u KIZUNA_LIFF_ID \
  -u KIZUNA_LINE_BOT_ID -u KIZUNA_LINE_CHANNEL_SECRET -u KIZUNA_LINE_CHANNEL_ACCESS_TOKEN \
  KIZUNA_BIND=127.0.0.1:$port KIZUNA_DATA_DIR="$data" KIZUNA_WEB_DIR="$data/web" \
  KIZUNA_LINE_MOCK=true RUST_LOG=warn "$server_bin" serve >"$data/server.log" 2>&1 &
server=$!
cleanup() {
  kill "$server" 2>/dev/null || true
  wait "$server" 2>/dev/null || true
  rm -rf "$data"
}
trap cleanup EXIT
for _ in $(seq 1 100); do
  curl -fsS "$base/healthz" >/dev/null 2>&1 && break
  kill -0 "$server" 2>/dev/null || { cat "$data/server.log" >&2; exit 1; }
  sleep 0.2
done

eval "$(python3 "$here/member.py" "$base")"
export KIZUNA_MEMBER_ID KIZUNA_ID_TOKEN KIZUNA_SESSION KIZUNA_MEMBER_FILE

case $mode in
  # A fixed seed: `just test` fails on the API, never on the draw.
  short) args=(--max-examples 30 --seed 20261122) ;;
  long) args=(--max-examples 400) ;;
  *) echo "usage: $0 short|long" >&2; exit 2 ;;
esac
status=0
# From the temp dir: whatever schemathesis writes stays out of the work tree.
(cd "$data" && "$venv/bin/st" --no-color --config-file "$here/schemathesis.toml" \
  run "$base/api/openapi.json" --checks all --phases examples,coverage,fuzzing --workers 2 \
  "${args[@]}") || status=$?
if grep -q "panicked" "$data/server.log"; then
  echo "the server panicked during the run:" >&2
  grep -A3 "panicked" "$data/server.log" >&2
  status=1
fi
exit "$status"
