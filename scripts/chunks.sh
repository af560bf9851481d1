#!/usr/bin/env bash
# A long fixed-length match of NEW against BASE, played in short chunks, each summarised as one
# row of a ledger kept in the repository (`scripts/games.py tally`). Run it again and it goes on
# after the last recorded chunk, so the count outlives a pause, a restart or the machine itself;
# a chunk cut short is played again.
#
#   scripts/chunks.sh LEDGER NEW_BINARY BASE_BINARY
#   scripts/games.py ledger [--sprt ELO0 ELO1] LEDGER      the totals so far
#
# Environment: GAMES (2000 in all), CHUNK (50 games), DATA (the chunks' PGNs and logs,
# ~/patina-data/chunks/<ledger name>), and what scripts/sprt.sh reads (TC, HASH, BOOK, ...).
# Between chunks, a file DATA/pause holds the match and DATA/stop ends it. The ledger's first
# line names the engines by bench signature and the time control; other binaries are refused.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
ledger=$(realpath "$1"); new=$(realpath "$2"); base=$(realpath "$3")
games=${GAMES:-2000}; chunk=${CHUNK:-50}
data=${DATA:-$HOME/patina-data/chunks/$(basename "$ledger" .tsv)}
mkdir -p "$data" "$(dirname "$ledger")"

signature() { "$1" bench | tail -1 | cut -d' ' -f1; }
identity="# new $(signature "$new"), base $(signature "$base"), tc ${TC:-8+0.08}, hash ${HASH:-16}, threads ${THREADS:-1}"
if [ ! -s "$ledger" ]; then
  echo "$identity" > "$ledger"
elif [ "$(head -1 "$ledger")" != "$identity" ]; then
  echo "$ledger was played as '$(head -1 "$ledger")', not '$identity'" >&2
  exit 2
fi

while true; do
  rows=$(grep -c -v -e '^#' -e '^tallied' "$ledger" || true)
  played=$(awk -F'\t' '!/^#/ && !/^tallied/ { n += $3 } END { print n + 0 }' "$ledger")
  if [ "$played" -ge "$games" ]; then echo "$played games recorded in $ledger"; break; fi
  while [ -e "$data/pause" ] && [ ! -e "$data/stop" ]; do sleep 10; done
  if [ -e "$data/stop" ]; then echo "stopped at $played games ($data/stop)"; break; fi
  out=$data/chunk-$((rows + 1))
  rm -rf "$out"
  echo "== chunk $((rows + 1)): games $((played + 1))-$((played + chunk))"
  FIXED=1 MAX_ROUNDS=$((chunk / 2)) OUT=$out "$here/sprt.sh" "$new" "$base" || [ $? -eq 3 ]
  python3 "$here/games.py" tally --engine new --ledger "$ledger" "$out/games.pgn"
done
