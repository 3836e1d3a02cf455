#!/usr/bin/env bash
# Sets up a fresh machine (Rust wasm target, just, wasm-bindgen-cli at the pinned version, Chromium,
# CJK fonts, Prometheus, nasm) and then runs the given just recipe: `scripts/dev.sh up` or `scripts/dev.sh test`.
# Every step is skipped when its tool is already there, so it is cheap to run again.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"

wasm_bindgen_version=$(sed -n 's/^wasm_bindgen_version := "\(.*\)"/\1/p' justfile)

step() { printf '\n== %s\n' "$*"; }

if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  step "adding the wasm32 target"
  rustup target add wasm32-unknown-unknown
fi
# The justfile runs recipes side by side with `[parallel]`, which came with just 1.42.
if ! just --version 2>/dev/null | awk '{ split($2, v, "."); exit !(v[1] > 1 || (v[1] == 1 && v[2] >= 42)) }'; then
  step "installing just"
  cargo install just
fi
if [ "$(wasm-bindgen --version 2>/dev/null | awk '{print $2}')" != "$wasm_bindgen_version" ]; then
  step "installing wasm-bindgen-cli $wasm_bindgen_version (takes a few minutes)"
  # Without --locked: the registry lacks a few versions that the CLI's own lock file names.
  cargo install wasm-bindgen-cli --version "$wasm_bindgen_version"
fi
need_apt=()
[ -x /usr/bin/chromium ] || need_apt+=(chromium)
# The server tests run aiosmtpd (from PyPI, in a virtualenv: scripts/smtp-venv.sh) as a real SMTP server.
command -v python3 >/dev/null || need_apt+=(python3 python3-venv)
# CJK glyphs for the zh-TW and ja screens that the end-to-end tests screenshot.
[ -d /usr/share/fonts/opentype/noto ] || need_apt+=(fonts-noto-cjk)
# promtool checks and tests the alert rules, and a real Prometheus scrapes a server in the tests.
{ command -v promtool >/dev/null && command -v prometheus >/dev/null; } || need_apt+=(prometheus)
# libjpeg-turbo's SIMD decoder (the image proxy's JPEG path, mozjpeg-sys) is x86 assembly built by nasm.
command -v nasm >/dev/null || need_apt+=(nasm)
if [ ${#need_apt[@]} -gt 0 ]; then
  step "installing ${need_apt[*]} from Debian"
  sudo_cmd=""; [ "$(id -u)" = 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${need_apt[@]}"
fi

step "just ${*:-test}"
exec just "${@:-test}"
