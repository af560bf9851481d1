#!/usr/bin/env bash
# What each search technique is worth: the `tune` build has a switch per technique (its `uci`
# answer lists them as check options that default to true, named in lower case like the
# parameters). For each switch, the full engine
# plays the same binary with that switch off through scripts/sprt.sh, so a pass (H1) means the
# technique is worth at least ELO0 Elo.
#
#   scripts/ablation.sh [SWITCH ...]        (default: every switch)
#
# Environment: TC (2+0.02: short, since on 2 cores a technique at 8+0.08 costs hours), ELO0 ELO1
# (0 10), MAX_ROUNDS (100 pairs, then the match ends as a fixed-length one), DATA (binary and
# match directories, ~/patina-data), and everything scripts/sprt.sh reads. The tune build is made
# from the working tree on every run (cargo rebuilds only what changed) and copied under its own
# hash. A match that fails (sprt.sh exit code other than 0, 1 or 3) ends the run with its code.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
data=${DATA:-$HOME/patina-data}
mkdir -p "$data/ablation-bin"

(cd "$repo" && cargo build -q --release -p patina --features tune)
bin=$data/ablation-bin/patina-tune-$(sha256sum "$repo/target/release/patina" | cut -c1-12)
# Named by its hash, so a running ablation's binary is never written over; copied under a
# temporary name, so a killed copy leaves no partial binary.
if [ ! -x "$bin" ]; then
  cp "$repo/target/release/patina" "$bin.$$"
  mv "$bin.$$" "$bin"
fi
names=("$@")
if [ ${#names[@]} -eq 0 ]; then
  mapfile -t names < <(printf 'uci\nquit\n' | "$bin" \
    | sed -n 's/^option name \([a-z_]*\) type check default true$/\1/p')
fi
for name in "${names[@]}"; do
  echo "== $name: full engine vs $name off, TC ${TC:-2+0.02}"
  # A match starts afresh, and fastchess appends to a PGN that is there.
  rm -rf "$data/ablation/$name"
  status=0
  BASE_OPTIONS="option.$name=false" TC=${TC:-2+0.02} MAX_ROUNDS=${MAX_ROUNDS:-100} \
    OUT=$data/ablation/$name "$here/sprt.sh" "$bin" "$bin" "${ELO0:-0}" "${ELO1:-10}" || status=$?
  # H1 (0), H0 (1) and no decision (3) are results; anything else is a match that did not run.
  case $status in
    0 | 1 | 3) ;;
    *) echo "$name: sprt.sh failed (exit code $status); see $data/ablation/$name" >&2; exit "$status" ;;
  esac
done
