# shellcheck shell=bash
# Shared helpers for the scripts in this folder (sourced, not run).

# fastchess from $FASTCHESS or PATH; it is built outside the repo (see README).
find_fastchess() {
  FASTCHESS=${FASTCHESS:-$(command -v fastchess || true)}
  if [ -z "$FASTCHESS" ] || [ ! -x "$FASTCHESS" ]; then
    echo "fastchess not found: put it on PATH or set FASTCHESS=/path/to/fastchess" >&2
    exit 2
  fi
}
