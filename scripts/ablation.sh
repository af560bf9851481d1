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
# match directories, ~/patina-data), and everything scripts/sprt.sh reads.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
data=${DATA:-$HOME/patina-data}
bin=$data/ablation-bin/patina-tune-$(git -C "$repo" rev-parse --short HEAD)
mkdir -p "$(dirname "$bin")"

if [ ! -x "$bin" ]; then
  (cd "$repo" && cargo build -q --release -p patina --features tune)
  cp "$repo/target/release/patina" "$bin"
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
  BASE_OPTIONS="option.$name=false" TC=${TC:-2+0.02} MAX_ROUNDS=${MAX_ROUNDS:-100} \
    OUT=$data/ablation/$name "$here/sprt.sh" "$bin" "$bin" "${ELO0:-0}" "${ELO1:-10}" || true
done
