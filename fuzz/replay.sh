#!/usr/bin/env bash
# Builds every fuzz target and runs each once over its committed corpus and the inputs of past
# findings (regressions/), without fuzzing: a quick check that no known input panics, hangs or
# runs out of memory, and that the targets still build. Needs the nightly toolchain and
# cargo-fuzz (`cargo install cargo-fuzz`).
#
# Usage: fuzz/replay.sh [TARGET...]   (every target by default)
set -euo pipefail
cd "$(dirname "$0")"
cargo +nightly fuzz build -O
mapfile -t targets < <(if [ $# -gt 0 ]; then printf '%s\n' "$@"; else cargo +nightly fuzz list; fi)
log=$(mktemp)
trap 'rm -f "$log"' EXIT
for target in "${targets[@]}"; do
  inputs=("corpus/$target")
  [ -d "regressions/$target" ] && inputs+=("regressions/$target")
  # The nets of the lineage are the net loader's real inputs.
  [ "$target" = net ] && inputs+=(../nets)
  if cargo +nightly fuzz run -O "$target" "${inputs[@]}" -- \
    -runs=0 -timeout=10 -rss_limit_mb=4096 > "$log" 2>&1; then
    echo "$target: $(grep -oE 'INITED.*' "$log" | head -1)"
  else
    tail -40 "$log" >&2
    echo "fuzz target $target failed on a replayed input (${inputs[*]})" >&2
    exit 1
  fi
done
