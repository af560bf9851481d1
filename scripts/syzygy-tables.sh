#!/usr/bin/env bash
# Syzygy tables of up to MAX pieces (3, 4 or 5) for tablebase matches and tests, made with the
# public generator (github.com/syzygy1/tb, built outside this repository: its rtbgen, rtbgenp
# and tbcheck on PATH, or in $TBGEN). Resumable: tables already in DIR are kept, and each table
# is generated in a scratch directory and moved in whole, WDL and DTZ file together, so a
# killed run leaves no half-written table behind.
#
#   scripts/syzygy-tables.sh MAX DIR      generate and check every table up to MAX pieces
#   scripts/syzygy-tables.sh --list MAX   print the tables' names in generation order
#
# Environment: TBGEN (the generator's src/ directory), THREADS [1], CHECKSUMS (the generator's
# checksums/ directory: each file's checksum must then equal the published one too). Every file
# must match the checksum it carries (tbcheck hashes its content again).
#
# Names are the published sets' (and Stockfish's): the stronger side first, each side's pieces
# in the order Q R B N P. Tables come fewer pieces first and, within a count, fewer pawns first,
# so that the tables a capture or a promotion leads to are always there before they are needed.
# Costs on one Zen 4 core: the 35 tables of 3 and 4 pieces, 4.3 MB, two to three minutes; a
# pawnless 5-piece table about a minute (KRBvKR: 70 s, 0.7 GB of memory).
set -euo pipefail

usage() { echo "usage: $0 MAX DIR | --list MAX  (MAX: 3, 4 or 5)" >&2; exit 2; }

# Every table of 3 to $1 pieces as "pieces pawns name", in generation order.
tables() {
  local max=$1 p1 p2 p3 letters=(P N B R Q)
  name() { # strong side's piece indices, then "v", then the weak side's
    local out=K i
    for i in "$@"; do
      if [ "$i" = v ]; then out+=vK; else out+=${letters[$i]}; fi
    done
    echo "$out"
  }
  for p1 in 0 1 2 3 4; do
    name "$p1" v
    for p2 in $(seq 0 "$p1"); do
      name "$p1" "$p2" v
      name "$p1" v "$p2"
      for p3 in 0 1 2 3 4; do name "$p1" "$p2" v "$p3"; done
      for p3 in $(seq 0 "$p2"); do name "$p1" "$p2" "$p3" v; done
    done
  done | awk -v max="$max" '{ n = length($0) - 1; p = gsub(/P/, "P"); if (n <= max) print n, p, $0 }' \
    | sort -k1,1n -k2,2n -k3,3
}
table_names() { tables "$1" | awk '{ print $3 }'; }

if [ "${1:-}" = --list ]; then
  [[ ${2:-} =~ ^[345]$ ]] || usage
  table_names "$2"
  exit 0
fi
if [ $# -ne 2 ] || ! [[ $1 =~ ^[345]$ ]]; then usage; fi
max=$1
mkdir -p "$2"
dir=$(realpath "$2")
[ -n "${TBGEN:-}" ] && PATH=$(realpath "$TBGEN"):$PATH
for tool in rtbgen rtbgenp tbcheck; do
  command -v $tool > /dev/null || { echo "$tool not found: put the generator's src/ on PATH or set TBGEN" >&2; exit 2; }
done

scratch=$dir/.generating
tables "$max" | while read -r _ pawns table; do
  [ -f "$dir/$table.rtbw" ] && [ -f "$dir/$table.rtbz" ] && continue
  rm -rf "$scratch" && mkdir -p "$scratch"
  generator=rtbgen; [ "$pawns" -gt 0 ] && generator=rtbgenp
  echo "[$(date +%T)] $table"
  (cd "$scratch" && RTBPATH=$dir $generator -t "${THREADS:-1}" "$table" > generate.log 2>&1) \
    || { echo "$generator $table failed: see $scratch/generate.log" >&2; exit 1; }
  mv "$scratch/$table.rtbz" "$dir/"
  mv "$scratch/$table.rtbw" "$dir/"
done
rm -rf "$scratch"

# Every file is checked, the ones kept from earlier runs too.
cd "$dir"
files=()
while read -r table; do files+=("$table.rtbw" "$table.rtbz"); done < <(table_names "$max")
# tbcheck hashes each file's content; --print below only reads the checksum in its last 16 bytes.
bad=$(tbcheck "${files[@]}" | grep -v ": OK!$" || true)
[ -z "$bad" ] || { echo "files that fail their own checksum:"$'\n'"$bad" >&2; exit 1; }
if [ -n "${CHECKSUMS:-}" ]; then
  published=$(cat "$CHECKSUMS"/wdl345.txt "$CHECKSUMS"/dtz345.txt)
  bad=$(tbcheck --print "${files[@]}" | grep -vxF -- "$published" || true)
  [ -z "$bad" ] || { echo "checksums that differ from the published ones:"$'\n'"$bad" >&2; exit 1; }
  echo "${#files[@]} files, each checksum equal to the published one"
else
  echo "${#files[@]} files, each matching its own checksum"
fi
