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
#   patina-<version>-<level>.exe    the same levels for Windows
#   patina-<version>-aarch64        Linux on ARMv8-A, NEON (Graviton, a Raspberry Pi 4/5 on a
#                                   64-bit OS)
#
# The Windows and AArch64 binaries are built where the cross toolchain is installed: the rustup
# target (`rustup target add x86_64-pc-windows-gnu aarch64-unknown-linux-gnu`) and its linker
# (Debian: gcc-mingw-w64-x86-64, gcc-aarch64-linux-gnu). They are benched like the others
# under wine (Debian: wine) and qemu-aarch64 (Debian: qemu-user) when those are on PATH.
# Rust's std makes Windows binaries import ProcessPrng from bcryptprimitives.dll, which Wine
# 8.0 (Debian 12) lacks: there the Windows binaries are reported as not benched.
#
# On AMD before Zen 3 (Zen 1 and 2, CPUID family 23; Excavator, family 21), PEXT is microcode:
# there the avx2 binary is the fastest, and the bmi2 one says so with an `info string warning`
# when it starts. The slider lookup each binary uses is checked against the one its level is for.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# Before 1.89 the AVX-512 target features are unstable: the code's cfg checks do not see them,
# so the x86-64-v4 binary would hold the AVX2 kernels and skip its AVX-512 check at start.
rustc_minor=$(rustc --version | sed -n 's/^rustc 1\.\([0-9]*\).*/\1/p')
if [ "${rustc_minor:-0}" -lt 89 ]; then
  echo "release builds need rustc 1.89 or newer ($(rustc --version))" >&2
  exit 1
fi
# With an explicit --target, RUSTFLAGS reach only the engine, not the build scripts and proc
# macros that run here during the build (an x86-64-v4 build script would crash on a CPU
# without AVX-512).
host=$(rustc -vV | sed -n 's/^host: //p')
out=$(realpath -m "${1:-$root/dist}")
mkdir -p "$out"
version=$(sed -n 's/^version = "\(.*\)"/\1/p' "$root/Cargo.toml" | head -1)

declare -A sliders=(
  [x86-64-v2]=magic
  [x86-64-avx2]=magic
  [x86-64-bmi2]=pext
  [x86-64-avx512]=pext
)
declare -A flags=(
  [x86-64-v2]="-C target-cpu=x86-64-v2"
  [x86-64-avx2]="-C target-cpu=x86-64-v3 -C target-feature=-bmi2"
  [x86-64-bmi2]="-C target-cpu=x86-64-v3"
  [x86-64-avx512]="-C target-cpu=x86-64-v4"
)
# Builds the engine for rustup target $1 with RUSTFLAGS $2 into target/release-$3 and copies
# it to $4. RUSTFLAGS replaces .cargo/config.toml's target-cpu=native for the engine and its
# dependencies; a target directory per level keeps each level's build from invalidating the
# others'.
build() {
  local binary=patina
  if [[ $1 == *windows* ]]; then binary=patina.exe; fi
  (cd "$root" && RUSTFLAGS="$2" CARGO_TARGET_DIR="$root/target/release-$3" \
    cargo build --release --quiet --target "$1" -p patina --bin patina)
  cp "$root/target/release-$3/$1/release/$binary" "$4"
}

signature=""
declare -A runnable=()
for level in x86-64-v2 x86-64-avx2 x86-64-bmi2 x86-64-avx512; do
  exe=$out/patina-$version-$level
  build "$host" "${flags[$level]}" "$level" "$exe"
  status=0
  output=$("$exe" bench 2>&1) || status=$?
  result=${output##*$'\n'}
  # 132: killed by SIGILL, an instruction this CPU lacks before the check could run.
  if [ $status -eq 132 ] || { [ $status -eq 1 ] && [[ $result == *"needs CPU features"* ]]; }; then
    echo "$level: $exe, not benched: this CPU cannot run it"
    continue
  elif [ $status -ne 0 ]; then
    echo "$level: bench failed (exit code $status): $result" >&2
    exit 1
  fi
  nodes=${result%% *}
  if ! grep -qx "sliders: ${sliders[$level]}" <<< "$output"; then
    echo "$level: expected ${sliders[$level]} slider lookups, bench says: $output" >&2
    exit 1
  fi
  echo "$level: $exe, bench $result (${sliders[$level]} sliders)"
  runnable[$level]=1
  if [ -n "$signature" ] && [ "$nodes" != "$signature" ]; then
    echo "bench differs between levels: $nodes against $signature" >&2
    exit 1
  fi
  signature=$nodes
done

# Whether the cross toolchain for rustup target $1, linking with $2, is installed.
can_cross_build() {
  rustup target list --installed 2> /dev/null | grep -x "$1" > /dev/null && command -v "$2" > /dev/null
}
# Benches cross-built binary $2 (named $1) with the runner that follows (wine, qemu-aarch64)
# and checks it against the x86-64 levels' signature.
check_cross() {
  local name=$1 exe=$2 status=0 output result
  shift 2
  output=$("$@" "$exe" bench 2>&1) || status=$?
  result=${output##*$'\n'}
  if [ $status -ne 0 ] && [[ $output == *bcryptprimitives* ]]; then
    echo "$name: $exe, not benched: this $1 lacks bcryptprimitives.dll"
    return
  elif [ $status -ne 0 ]; then
    echo "$name: bench under $1 failed (exit code $status): $result" >&2
    exit 1
  elif [ -z "$signature" ] || [ "${result%% *}" != "$signature" ]; then
    echo "$name: bench under $1 says $result, the x86-64 levels ${signature:-none}" >&2
    exit 1
  fi
  echo "$name: $exe, bench under $1 $result"
}

win=x86_64-pc-windows-gnu
if can_cross_build "$win" x86_64-w64-mingw32-gcc; then
  for level in x86-64-v2 x86-64-avx2 x86-64-bmi2 x86-64-avx512; do
    exe=$out/patina-$version-$level.exe
    build "$win" "${flags[$level]}" "$level" "$exe"
    if [ -z "${runnable[$level]:-}" ]; then
      echo "$level.exe: $exe, not benched: this CPU cannot run it"
    elif command -v wine > /dev/null; then
      WINEDEBUG=-all,err+module check_cross "$level.exe" "$exe" wine
    else
      echo "$level.exe: $exe, not benched: no wine"
    fi
  done
else
  echo "Windows: not built: needs \`rustup target add $win\` and x86_64-w64-mingw32-gcc"
fi

arm=aarch64-unknown-linux-gnu
arm_linker=${CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER:-aarch64-linux-gnu-gcc}
if can_cross_build "$arm" "$arm_linker"; then
  exe=$out/patina-$version-aarch64
  CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=$arm_linker build "$arm" "-C target-cpu=generic" aarch64 "$exe"
  if command -v qemu-aarch64 > /dev/null; then
    QEMU_LD_PREFIX=${QEMU_LD_PREFIX:-/usr/aarch64-linux-gnu} check_cross aarch64 "$exe" qemu-aarch64
  else
    echo "aarch64: $exe, not benched: no qemu-aarch64"
  fi
else
  echo "aarch64: not built: needs \`rustup target add $arm\` and $arm_linker"
fi

if command -v qemu-x86_64 > /dev/null; then
  for check in "Haswell x86-64-avx512" "core2duo x86-64-v2"; do
    read -r model level <<< "$check"
    answer=$(echo quit | qemu-x86_64 -cpu "$model" "$out/patina-$version-$level" 2>&1) || true
    if [[ $answer != *"needs CPU features"* ]]; then
      printf '%s on an emulated %s did not refuse with a message:\n%s\n' "$level" "$model" "$answer" >&2
      exit 1
    fi
    echo "$level on an emulated $model: ${answer##*$'\n'}"
  done
fi
echo "On AMD before Zen 3 (Zen 1/2, CPUID family 23), use patina-$version-x86-64-avx2:" \
  "the bmi2 binary uses PEXT, which those CPUs run as slow microcode."
