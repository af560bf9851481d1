#!/usr/bin/env bash
# Portable engine binaries, one per x86-64 level, as testers download them. Each embeds the
# default net (or EVALFILE, a path from the repository root). Every binary this CPU can run is
# checked with `bench`: all must print the same node count, since the SIMD kernels are bit-exact
# twins of the scalar reference and PEXT and magic lookups find the same attacks.
#
# The AVX-512 and v2 binaries refuse, with a message, a CPU without their level's instructions.
# The AVX2 ones cannot: the compiler's start-up code already uses AVX, so on a CPU without it
# they die of an illegal instruction before the check runs. With qemu-x86_64 on PATH, the two
# refusals are checked on emulated older CPUs.
#
#   scripts/release.sh [OUT_DIR]        (default dist/)
#
#   patina-<version>-x86-64-v2      SSE4.2 and POPCNT: the scalar NNUE
#   patina-<version>-x86-64-avx2    AVX2 without PEXT (microcoded, and slow, on AMD before Zen 3)
#   patina-<version>-x86-64-bmi2    x86-64-v3: AVX2 and PEXT slider lookups
#   patina-<version>-x86-64-avx512  x86-64-v4: AVX-512
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=$(realpath -m "${1:-$root/dist}")
mkdir -p "$out"
version=$(sed -n 's/^version = "\(.*\)"/\1/p' "$root/Cargo.toml" | head -1)

declare -A flags=(
  [x86-64-v2]="-C target-cpu=x86-64-v2"
  [x86-64-avx2]="-C target-cpu=x86-64-v3 -C target-feature=-bmi2"
  [x86-64-bmi2]="-C target-cpu=x86-64-v3"
  [x86-64-avx512]="-C target-cpu=x86-64-v4"
)
signature=""
for level in x86-64-v2 x86-64-avx2 x86-64-bmi2 x86-64-avx512; do
  exe=$out/patina-$version-$level
  # RUSTFLAGS replaces .cargo/config.toml's target-cpu=native for every crate; a target
  # directory per level keeps each level's build from invalidating the others'.
  (cd "$root" && RUSTFLAGS="${flags[$level]}" CARGO_TARGET_DIR="$root/target/release-$level" \
    cargo build --release --quiet -p patina --bin patina)
  cp "$root/target/release-$level/release/patina" "$exe"
  if ! output=$("$exe" bench 2>&1); then
    reason=${output##*$'\n'}
    echo "$level: $exe, not benched: this CPU cannot run it${reason:+ ($reason)}"
    continue
  fi
  result=${output##*$'\n'}
  nodes=${result%% *}
  echo "$level: $exe, bench $result"
  if [ -n "$signature" ] && [ "$nodes" != "$signature" ]; then
    echo "bench differs between levels: $nodes against $signature" >&2
    exit 1
  fi
  signature=$nodes
done

if command -v qemu-x86_64 > /dev/null; then
  for check in "Haswell x86-64-avx512" "core2duo x86-64-v2"; do
    set -- $check
    if answer=$(echo quit | qemu-x86_64 -cpu "$1" "$out/patina-$version-$2" 2> /dev/null); then
      echo "$2 on an emulated $1 did not refuse to run" >&2
      exit 1
    fi
    echo "$2 on an emulated $1: $answer"
  done
fi
