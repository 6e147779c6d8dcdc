#!/bin/sh
# Usage: . bench/venv.sh PACKAGE...  — makes .venv (PyPI peers for side-by-side runs)
# and installs the named packages into it if missing; sets $PY to its python.
venv_dir=.venv
[ -x "$venv_dir/bin/python" ] || python3 -m venv "$venv_dir"
PY="$venv_dir/bin/python"
for pkg in "$@"; do
  name=${pkg%%=*}
  "$PY" -m pip show -q "$name" >/dev/null 2>&1 || "$PY" -m pip install -q "$pkg"
done
