#!/usr/bin/env bash
# A long fixed-length match of NEW against BASE, played in short chunks, each summarised as one
# row of a ledger (`scripts/games.py tally`), kept outside git (e.g. ~/patina-data/matches/);
# the count outlives a pause or a restart (and, copied along, the machine): run the script again and it
# goes on after the last recorded chunk. A chunk cut short is not recorded; the next run plays
# it again.
#
#   scripts/chunks.sh LEDGER NEW_BINARY BASE_BINARY
#   scripts/games.py ledger [--sprt ELO0 ELO1] LEDGER      the totals so far
#
# Environment: GAMES (2000 in all), CHUNK (50 games, even), DATA (the chunks' PGNs and logs,
# ~/patina-data/chunks/<ledger name>; DATA/ledger names the ledger it belongs to, and another
# ledger's folder is refused while that ledger exists), SRAND (chunk N seeds its opening order with SRAND+N),
# ORDER=sequential (the book's openings in file order, each once: chunk N goes on where chunk N-1
# ended, and the match stops, exit code 3, when the book has too few left for a chunk; for
# fixed-node matches, which would replay a pair exactly), and what scripts/sprt.sh reads (TC,
# HASH, BOOK, ...).
# SPRT="ELO0 ELO1" makes it an SPRT that survives stops and restarts: after every chunk the pooled pairs are
# tested and a decision ends the match (exit code 0 for H1, 1 for H0, as sprt.sh); GAMES is then
# the most it plays (exit code 3 if still undecided).
# Between chunks, a file DATA/pause holds the match and DATA/stop ends it (exit code 3: not
# finished). A chunk that does not finish ends it with exit code 4; one whose fastchess fails (an
# engine, the book or an option it cannot load) or that leaves no games to count, with exit code 5.
# The ledger's first line identifies both binaries (by the start of their SHA-256) and the
# settings; a run that differs from it, bounds that are not two increasing numbers, or a ledger
# that cannot be pooled are refused (exit code 2), and so is a binary that changes between chunks.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
mkdir -p "$(dirname "$1")"
ledger=$(realpath "$1"); new=$(realpath "$2"); base=$(realpath "$3")
games=${GAMES:-2000}; chunk=${CHUNK:-50}
data=${DATA:-$HOME/patina-data/chunks/$(basename "$ledger" .tsv)}
mkdir -p "$data"
exec 9> "$data/lock"
flock -n 9 || { echo "another chunks.sh is playing into $data" >&2; exit 2; }
# The folder is named after the ledger's file name alone: it serves one ledger, and passes to
# another only when that one is gone (a ledger moved, or copied to another machine with it).
owner=$(cat "$data/ledger" 2>/dev/null || true)
if [ -n "$owner" ] && [ "$owner" != "$ledger" ] && [ -e "$owner" ]; then
  printf '%s holds the chunks of\n  %s\nnot of\n  %s\nset DATA to a folder of its own\n' \
    "$data" "$owner" "$ledger" >&2
  exit 2
fi
echo "$ledger" > "$data/ledger"

# Waits while DATA/pause exists; false once DATA/stop does.
hold() {
  while [ -e "$data/pause" ] && [ ! -e "$data/stop" ]; do sleep 10; done
  [ ! -e "$data/stop" ]
}

hold || { echo "stopped ($data/stop)"; exit 3; }
if [ -n "${SPRT:-}" ] && ! awk '{ exit !(NF == 2 && $1 + 0 == $1 && $2 + 0 == $2 && $1 < $2) }' <<< "$SPRT"; then
  echo "SPRT=\"$SPRT\": give two bounds, ELO0 < ELO1" >&2
  exit 2
fi
if [ -n "${SRAND:-}" ] && ! [[ $SRAND =~ ^(0|[1-9][0-9]*)$ ]]; then
  echo "SRAND=\"$SRAND\": give a whole number" >&2
  exit 2
fi
opening_order
if [ "${ORDER:-random}" = sequential ]; then
  book=${BOOK:-$(book_path 8moves_v3.pgn)}
  if [[ $book == *.epd ]]; then openings=$(grep -c '[^[:space:]]' "$book" || true)
  else openings=$(grep -c '^\[Event ' "$book" || true); fi
  [ "$openings" -gt 0 ] || { echo "no openings in $book" >&2; exit 2; }
fi
identify() { sha256sum "$1" | cut -c1-12; }
new_id=$(identify "$new"); base_id=$(identify "$base")
identity="# new $new_id, base $base_id, tc ${TC:-8+0.08}, hash ${HASH:-16},"
identity+=" threads ${THREADS:-1}, book $(basename "${BOOK:-8moves_v3.pgn}"),"
identity+=" options [${NEW_OPTIONS:-}] [${BASE_OPTIONS:-}], adjudication [${ADJUDICATE:-}]"
# Bounds changed halfway would void the test; ledgers without an SPRT keep their old first line.
[ -z "${SPRT:-}" ] || identity+=", sprt [$SPRT]"
# The order too, when it is not random.
[ "${ORDER:-random}" = random ] || identity+=", order $ORDER"
# The seed too (chunk N plays with SRAND+N); ledgers without one keep their old first line.
[ -z "${SRAND:-}" ] || identity+=", srand $SRAND"
# A ledger begun before the seed was recorded goes on under the same SRAND.
legacy=${identity%, srand *}
if [ ! -s "$ledger" ]; then
  echo "$identity" > "$ledger"
elif [ "$(head -1 "$ledger")" != "$identity" ] && [ "$(head -1 "$ledger")" != "$legacy" ]; then
  printf '%s was played as\n  %s\nnot\n  %s\n' "$ledger" "$(head -1 "$ledger")" "$identity" >&2
  exit 2
fi

# Every chunk runs whatever is at the two paths then: it must still be the ledger's binaries.
unchanged() {
  [ "$(identify "$new")" = "$new_id" ] && [ "$(identify "$base")" = "$base_id" ] && return 0
  echo "$1: $new or $base is no longer the binary the ledger names (new $new_id, base $base_id); stopped" >&2
  exit 2
}
rows() { grep -v -e '^#' -e '^tallied' -e '^[[:space:]]*$' "$ledger" || true; }
while true; do
  played=$(rows | awk -F'\t' '{ n += $3 } END { print n + 0 }')
  if [ -n "${SPRT:-}" ] && [ "$played" -gt 0 ]; then
    verdict=0
    # shellcheck disable=SC2086 # the two bounds
    python3 "$here/games.py" ledger --sprt $SPRT "$ledger" > "$data/sprt.txt" || verdict=$?
    grep -E '^(Games|Elo|LLR|SPRT)' "$data/sprt.txt" || true
    # The exit code alone could be a crash; the verdict line must agree with it.
    case "$verdict:$(tail -1 "$data/sprt.txt")" in
      "0:SPRT: H1 accepted" | "1:SPRT: H0 accepted") exit "$verdict" ;;
      "3:SPRT: no decision") ;;
      *) echo "cannot pool $ledger (games.py exit code $verdict)" >&2; exit 2 ;;
    esac
  fi
  if [ "$played" -ge "$games" ]; then
    echo "$played games recorded in $ledger"
    [ -z "${SPRT:-}" ] || exit 3
    break
  fi
  hold || { echo "stopped at $played games ($data/stop)"; exit 3; }
  number=$(($(rows | wc -l) + 1))
  unchanged "before chunk $number"
  start=$((played / 2 + 1))
  if [ "${ORDER:-random}" = sequential ] && [ $((start + chunk / 2 - 1)) -gt "$openings" ]; then
    echo "the book's $openings openings are used up: chunk $number would start at opening $start"
    exit 3
  fi
  out=$data/chunk-$number
  rm -rf "$out"
  echo "== chunk $number: games $((played + 1))-$((played + chunk))"
  status=0
  # Each chunk its own seed, so that the chunks play other openings.
  SRAND=${SRAND:+$((SRAND + number))} START=$start FIXED=1 MAX_ROUNDS=$((chunk / 2)) OUT=$out \
    "$here/sprt.sh" "$new" "$base" || status=$?
  # A fixed-length run ends undecided (3); anything else but 0 is a failure.
  case $status in
    0 | 3) ;;
    5) echo "chunk $number: fastchess failed; not recorded (see $out/fastchess.log)" >&2; exit 5 ;;
    *) echo "chunk $number: sprt.sh failed (exit code $status); not recorded (see $out)" >&2; exit 4 ;;
  esac
  if [ ! -s "$out/games.pgn" ]; then
    echo "chunk $number: no games in $out/games.pgn; not recorded (see $out/fastchess.log)" >&2
    exit 5
  fi
  finished=$(grep -c -E '^\[Result "(1-0|0-1|1/2-1/2)"\]' "$out/games.pgn" || true)
  if [ "$finished" -ne $((chunk / 2 * 2)) ]; then
    echo "chunk $number ended after $finished of $((chunk / 2 * 2)) games; not recorded (see $out)" >&2
    exit 4
  fi
  unchanged "after chunk $number"
  python3 "$here/games.py" tally --engine new --ledger "$ledger" "$out/games.pgn" \
    || { echo "chunk $number: cannot tally $out/games.pgn; not recorded" >&2; exit 5; }
done
