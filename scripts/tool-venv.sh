#!/usr/bin/env bash
# Creates (or reuses) a virtualenv with one Python tool from PyPI under $KIZUNA_TOOLS_DIR (default
# ~/.cache/kizuna) as NAME-VERSION, and prints the path of its command. Usage:
# scripts/tool-venv.sh PACKAGE VERSION COMMAND (squawk-cli for the migrations' linter, awscli for
# the backup drill's bucket copies). Needs only python3 with venv.
set -euo pipefail
package=${1:?usage: scripts/tool-venv.sh PACKAGE VERSION COMMAND}
version=${2:?usage: scripts/tool-venv.sh PACKAGE VERSION COMMAND}
command=${3:?usage: scripts/tool-venv.sh PACKAGE VERSION COMMAND}
dir=${KIZUNA_TOOLS_DIR:-$HOME/.cache/kizuna}/$command-$version
if [ ! -x "$dir/bin/$command" ] || [ ! -f "$dir/.installed" ]; then
  echo "== installing $package $version into $dir" >&2
  mkdir -p "$(dirname "$dir")"
  # Made beside the target and moved into place, so that a concurrent run never sees half a venv;
  # the venv's scripts name its final directory, so it is made there under a lock.
  exec 9>"$dir.lock"
  flock 9
  if [ ! -f "$dir/.installed" ]; then
    rm -rf "$dir"
    python3 -m venv "$dir" >&2
    "$dir/bin/pip" install --quiet --disable-pip-version-check "$package==$version" >&2
    touch "$dir/.installed"
  fi
fi
echo "$dir/bin/$command"
