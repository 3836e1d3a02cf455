# Every recipe a developer or CI runs. `scripts/dev.sh` installs the tools and then calls these.
set shell := ["bash", "-euo", "pipefail", "-c"]

wasm_bindgen_version := "0.2.130"
# The S3-compatible server the tests keep files in (newer versions need a newer rustc).
s3s_fs_version := "0.14.1"
target_dir := env_var_or_default("CARGO_TARGET_DIR", justfile_directory() / "target")
wasm_out := "web/src/wasm-pkg"

default:
    @just --list

# Build the wasm package and the web app, then run the server on its embedded defaults.
up: wasm web-build
    cargo run -p kizuna-server --release -- serve

# Every test: lint, core natively, the same vectors in wasm under Node, server, web unit, end-to-end.
test: lint test-core test-wasm test-server chaos-short test-contract test-web e2e

# rustfmt and clippy -D warnings, native and wasm32; kizuna-core's docs without a warning; the web
# app's ESLint (typescript-eslint, react-hooks, import boundaries) with zero warnings allowed.
lint: web-install
    cd web && npm run lint
    cargo fmt --all -- --check
    cargo clippy --workspace --all-targets -- -D warnings
    cargo clippy -p kizuna-core -p kizuna-wasm --target wasm32-unknown-unknown --all-targets -- -D warnings
    RUSTDOCFLAGS="-D warnings" cargo doc -p kizuna-core --no-deps

# Core unit tests, property tests, the shared vectors natively (prints the vector count) and the
# doc examples (`cargo test` runs doc tests too).
test-core:
    cargo test -p kizuna-core -- --show-output

# The shared vectors and wasm unit tests, compiled to wasm32 and run by wasm-bindgen-test in Node.
test-wasm:
    CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner cargo test -p kizuna-wasm --target wasm32-unknown-unknown -- --nocapture

# Build the wasm package (release, size-optimised) into the web app's source tree. wasm-opt comes
# from the npm `binaryen` package: Debian's binaryen 108 mis-wires wasm-bindgen's externref table
# export and produces a package that fails to load.
wasm: web-install
    cargo build -p kizuna-wasm --target wasm32-unknown-unknown --profile wasm-release
    wasm-bindgen --target bundler --out-dir {{wasm_out}} --out-name kizuna_wasm {{target_dir}}/wasm32-unknown-unknown/wasm-release/kizuna_wasm.wasm
    web/node_modules/.bin/wasm-opt -Oz --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext --enable-mutable-globals --enable-reference-types --enable-multivalue -o {{wasm_out}}/kizuna_wasm_bg.wasm {{wasm_out}}/kizuna_wasm_bg.wasm
    cd web && node scripts/check-wasm-pkg.mjs

# Gzip size of the release .wasm the browser downloads (budget: 60 KB).
wasm-size: wasm
    python3 scripts/wasm_size.py {{wasm_out}}/kizuna_wasm_bg.wasm 61440

# Server unit + integration tests (each test gets its own SQLite file or PostgreSQL database on
# 127.0.0.1:5432, user postgres, dropped afterwards). The e-mail tests also send through a real
# SMTP server, Python's aiosmtpd, from a virtualenv in the target dir (created on first use); the
# tests of several processes keep their files in a real S3-compatible server, s3s-fs.
test-server: smtp-venv s3s-fs
    cargo test -p kizuna-server

# s3s-fs, a real S3-compatible server for the tests (cargo install, a few minutes, once).
s3s-fs:
    [ "$(s3s-fs --version 2>/dev/null | awk '{print $2}')" = "{{s3s_fs_version}}" ] || cargo install s3s-fs --version {{s3s_fs_version}} --features binary

# The API contract, short run (part of `just test`): schemathesis 4 (`--checks all`, examples +
# coverage + fuzzing, a fixed seed) against the real server as a registered member; fails on any
# failure. Installs schemathesis into a virtualenv under ~/.cache/kizuna on first use.
test-contract:
    cargo build -p kizuna-server
    server/contract/run.sh short

# The same contract check with 400 examples per operation and a random seed (a few minutes).
contract:
    cargo build -p kizuna-server
    server/contract/run.sh long

# The virtualenv with aiosmtpd that the server tests start as a real SMTP server.
smtp-venv:
    bash scripts/smtp-venv.sh {{target_dir}}/tmp/smtp-venv

# Fuzzing (not part of `just test`, which runs the committed corpora as plain tests): each cargo-fuzz
# target of fuzz/ for `seconds` (default 180). No nightly: RUSTC_BOOTSTRAP=1 lets the stable
# toolchain take cargo-fuzz's sanitizer flags. New inputs go to a scratch corpus in the target dir;
# fuzz/corpus/<target>/ (the committed seeds and regression cases) is read, never written. A crash
# stops the run and leaves its input under fuzz/artifacts/<target>/: fix it, then commit the input
# as fuzz/corpus/<target>/regression-<what>. `just fuzz 60 ipx_modifiers` runs only what is named.
fuzz seconds="180" +targets="registration_payload draft_repair ipx_modifiers upload_decode":
    command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz
    for t in {{targets}}; do \
        mkdir -p {{target_dir}}/fuzz-corpus/$t; \
        (cd fuzz && RUSTC_BOOTSTRAP=1 cargo fuzz run --sanitizer none $t {{target_dir}}/fuzz-corpus/$t corpus/$t -- \
            -max_total_time={{seconds}} -timeout=20 -rss_limit_mb=2560 -print_final_stats=1); \
    done

# Server benchmarks (not part of `just test`; installs wrk from Debian if missing; needs node and PostgreSQL on 127.0.0.1:5432):
# my-info vs healthz on SQLite and PostgreSQL, and the image proxy against the npm ipx package: the
# profile page's srcset and placeholders over 1280 px uploads (what the app really asks), 12 MP originals.
bench:
    cargo build -p kizuna-server --release --bin kizuna-server --example bench_images
    bash server/bench/run.sh

# Uploads against their memory ceiling (not part of `just test`): the release server with 2 image
# workers, and 60 users (`just bench-uploads 120` for more) each uploading an 8.8 MB 40 MP JPEG at
# once, retrying a 503 after its Retry-After. Prints the first answers, the wall time and the
# server's peak memory (VmHWM) above idle against `images::admission::memory_ceiling` (the ceiling
# docs/design.md states); fails above it or when an upload never got stored.
bench-uploads uploads="60":
    cargo build --release -p kizuna-server --bin kizuna-server --example bench_uploads
    BENCH_UPLOADS={{uploads}} {{target_dir}}/release/examples/bench_uploads {{target_dir}}/release/kizuna-server

# The matching hot path of kizuna-core (release): ns per two-way check, per score and per candidate
# scanned for one member's daily list, over synthetic members (default 20000; `just bench-core 50000`).
bench-core members="20000":
    cargo run --release -p kizuna-core --example match_bench -- {{members}}

# The server's OpenAPI document into the web app (web/src/lib/api/openapi.json, checked by a server
# test) and the TypeScript types generated from it (schema.d.ts, by openapi-typescript).
openapi: web-install
    cargo build -p kizuna-server
    {{target_dir}}/debug/kizuna-server openapi > web/src/lib/api/openapi.json
    cd web && npx openapi-typescript src/lib/api/openapi.json -o src/lib/api/schema.d.ts --default-non-nullable=false

web-install:
    cd web && npm ci --no-audit --no-fund

web-build: wasm
    cd web && npm run build

# Vitest unit tests of the web app (guards, API client, toasts, draft storage, translations vs the core).
test-web: wasm
    cd web && npm test

# End-to-end: the real server (built fresh here, never a stale binary) + the built web app in
# Debian Chromium.
e2e: web-build
    cargo build -p kizuna-server
    cd web && KIZUNA_SERVER_BIN={{target_dir}}/debug/kizuna-server npm run e2e

# The budget figures, printed: /register's bytes on the wire (CDP encodedDataLength: compressed
# bodies and headers of every request, wasm and API answers included) until the form is usable
# (<= 150 KB) and its Lighthouse mobile performance score (median of 3 runs, >= 95); an approved
# member's tab switch at 150 ms round trips (median of ten, <= 300 ms); a cold /today at 400 ms and
# 400 kbit/s (frame <= 1 s, and the first card). Against the release server as `just up` runs it.
# Fails when out of budget.
web-budget: web-build
    cargo build -p kizuna-server --release
    cd web && KIZUNA_SERVER_BIN={{target_dir}}/release/kizuna-server CHROME_PATH=/usr/bin/chromium npm run budget

# Matchmaking at scale (not part of `just test`; PostgreSQL on 127.0.0.1:5432): valid synthetic
# members bulk-loaded as APPROVED, then the pool's load time and memory, one member's list on
# demand (p50/p99) and the daily job's wall time: PostgreSQL at 100k and 1M, SQLite at 100k.
# `just bench-match postgres:100000` runs only what is named.
bench-match +runs="postgres:100000 sqlite:100000 postgres:1000000":
    cargo build --release -p kizuna-server --example bench_match
    for run in {{runs}}; do {{target_dir}}/release/examples/bench_match "${run%%:*}" "${run##*:}"; done

# What keeping files in an S3 bucket costs a member's request (not part of `just test`): the
# release server on the local store and on an s3s-fs bucket over loopback, one member's photo
# fetched, a cached variant and new variants, p50/p99 of each.
bench-store: s3s-fs
    cargo build --release -p kizuna-server --bin kizuna-server --example bench_store
    {{target_dir}}/release/examples/bench_store {{target_dir}}/release/kizuna-server

# Load and faults (not part of `just test`; about 5 minutes after the release build, 40 s of them setting up 2,000 members): two release servers on a PostgreSQL
# cluster the run starts on a spare port and an s3s-fs bucket, the mock LINE platform in a third
# process; members register with photos, are approved, match, keep event streams open and chat at
# `rate` messages a second in all while server A is killed (SIGKILL) and restarted three times and
# PostgreSQL restarted once. Prints messages a second and delivery p50/p99 with 2 and with 1
# process, then the checker's findings; fails unless every acknowledged message, match, decision,
# push and photo is there exactly once (server/examples/chaos).
chaos pairs="1000" rate="500" secs="30": s3s-fs
    cargo build --release -p kizuna-server --bin kizuna-server --example chaos
    CHAOS_PAIRS={{pairs}} CHAOS_RATE={{rate}} CHAOS_SECS={{secs}} {{target_dir}}/release/examples/chaos {{target_dir}}/release/kizuna-server "$(command -v s3s-fs || echo $HOME/.cargo/bin/s3s-fs)"

# The same run, short (part of `just test`, under 2 minutes): 30 pairs, debug build; only the
# checker's verdict counts, not the figures.
chaos-short: s3s-fs
    cargo build -p kizuna-server --bin kizuna-server --example chaos
    CHAOS_PAIRS=30 CHAOS_RATE=20 CHAOS_SECS=8 {{target_dir}}/debug/examples/chaos {{target_dir}}/debug/kizuna-server "$(command -v s3s-fs || echo $HOME/.cargo/bin/s3s-fs)"

# What one rate-limit check costs (not part of `just test`; PostgreSQL on 127.0.0.1:5432): shared
# through PostgreSQL and in the process's memory, one at a time (p50/p99) and 32 at once.
bench-limits checks="20000":
    cargo run --release -p kizuna-server --example bench_limits -- {{checks}}
