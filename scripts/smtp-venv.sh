#!/usr/bin/env bash
# Creates (or reuses) the Python virtualenv with aiosmtpd that the server tests run as a real SMTP
# server (server/tests/smtp/capture.py). Usage: scripts/smtp-venv.sh DIR. Needs only python3 (with
# venv/ensurepip, or pip as a fallback).
set -euo pipefail
dir=${1:?usage: scripts/smtp-venv.sh DIR}
version=1.4.6
if [ -x "$dir/bin/python" ] && "$dir/bin/python" -c "import aiosmtpd, sys; sys.exit(aiosmtpd.__version__ != '$version')" 2>/dev/null; then
  exit 0
fi
mkdir -p "$(dirname "$dir")"
# Built beside the target and moved into place, so that a concurrent run never sees half a venv.
tmp="$dir.tmp.$$"
rm -rf "$tmp"
if python3 -m venv "$tmp" 2>/dev/null; then
  "$tmp/bin/python" -m pip install --quiet --disable-pip-version-check "aiosmtpd==$version"
else
  # No venv module (Debian without python3-venv): a plain package directory and a wrapper.
  python3 -m pip install --quiet --disable-pip-version-check --target "$tmp/lib" "aiosmtpd==$version"
  mkdir -p "$tmp/bin"
  printf '#!/bin/sh\nPYTHONPATH="%s/lib${PYTHONPATH:+:$PYTHONPATH}" exec python3 "$@"\n' "$dir" > "$tmp/bin/python"
  chmod +x "$tmp/bin/python"
fi
rm -rf "$dir"
mv "$tmp" "$dir"
