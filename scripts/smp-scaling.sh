#!/usr/bin/env bash
# Lazy SMP speed-up: `bench` nps with Threads = 1 and with more, alternating runs so that drift
# in the machine's speed hits both alike. Run it on an otherwise idle machine.
#
#   scripts/smp-scaling.sh [PATINA_BINARY]    (default the repository's target/release/patina)
#
# Environment: THREADS (2), DEPTH (14: deep enough that starting and stopping the helper threads
# for each of the 50 positions costs little), RUNS (3), HASH (64).
set -euo pipefail
patina=${1:-$(cd "$(dirname "$0")/.." && pwd)/target/release/patina}
threads=${THREADS:-2}

nps() {
  printf 'setoption name Hash value %s\nsetoption name Threads value %s\nbench %s\nquit\n' \
    "${HASH:-64}" "$1" "${DEPTH:-14}" | "$patina" | awk '/ nodes .* nps$/ { print $3 }'
}

one=(); many=(); ratios=()
for _ in $(seq "${RUNS:-3}"); do
  one+=("$(nps 1)")
  many+=("$(nps "$threads")")
  ratios+=("$(echo "scale=3; ${many[-1]} / ${one[-1]}" | bc)")
  echo "1 thread ${one[-1]} nps, $threads threads ${many[-1]} nps: ${ratios[-1]}x"
done
best() { printf '%s\n' "$@" | sort -n | tail -n 1; }
echo "best: 1 thread $(best "${one[@]}") nps, $threads threads $(best "${many[@]}") nps," \
  "$(echo "scale=2; $(best "${many[@]}") / $(best "${one[@]}")" | bc)x;" \
  "mean of the pairs $(printf '%s\n' "${ratios[@]}" | awk '{ s += $1 } END { printf "%.2f", s / NR }')x"
