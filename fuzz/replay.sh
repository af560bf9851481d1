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
# libFuzzer's first folder is where it would add inputs: a scratch one, so that a replay never
# writes into the repository.
scratch=$(mktemp -d)
trap 'rm -rf "$log" "$scratch"' EXIT
for target in "${targets[@]}"; do
  inputs=("$scratch")
  for dir in "corpus/$target" "regressions/$target"; do
    [ -d "$dir" ] && inputs+=("$dir")
  done
  # The nets of the lineage are the net loader's real inputs (its corpus of mutated nets,
  # 800 KB each, stays out of git).
  [ "$target" = net ] && inputs+=(../nets)
  # Threads' bookkeeping in the standard library (their thread-local destructors, registered
  # through glibc, and the handle a scoped thread keeps) shows up as a 32- or 48-byte leak once
  # an engine has started threads, and so do tokio's idle blocking threads at exit:
  # LeakSanitizer's false alarms, so neither target checks leaks.
  leaks=()
  case $target in uci | http) leaks=(-detect_leaks=0) ;; esac
  if ASAN_OPTIONS=${leaks:+detect_leaks=0} cargo +nightly fuzz run -O "$target" "${inputs[@]}" -- \
    -runs=0 -timeout=10 -rss_limit_mb=4096 "${leaks[@]}" > "$log" 2>&1; then
    echo "$target: $(grep -oE 'INITED.*' "$log" | head -1)"
  else
    tail -40 "$log" >&2
    echo "fuzz target $target failed on a replayed input (${inputs[*]})" >&2
    exit 1
  fi
done
