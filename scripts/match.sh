#!/usr/bin/env bash
# Matches between engine binaries with fastchess (from $FASTCHESS or PATH; built outside the
# repo, see README). docs/testing.md explains each mode; every game is played by play_match.
#
#   scripts/match.sh sprt NEW BASE [ELO0 ELO1]   an SPRT (0 5: a gain; "-5 0": a simplification)
#   scripts/match.sh chunks LEDGER NEW BASE      a long match in resumable chunks, tallied in LEDGER
#   scripts/match.sh gauntlet [PATINA]           chunks against Debian's engines (default: this
#                                                repository's target/release/patina)
#   scripts/match.sh ablation [SWITCH ...]       an sprt per search switch of the `tune` build
#                                                (default: every one), on against off
#   scripts/match.sh levels [PATINA]             chunks of Patina's strength levels against
#                                                Stockfish's levels of the same rating
#
# Every mode (environment): TC (8+0.08; `nodes=N` for N nodes a move), HASH (16), THREADS (1),
# CONCURRENCY (2), BOOK (../shared/books/8moves_v3.pgn; EPD if named .epd), ORDER=sequential
# (the book in file order from opening START, default 1, not in random order), SRAND (the seed
# of the opening order), NEW_OPTIONS / BASE_OPTIONS (extra "option.X=Y" words), ADJUDICATE
# (fastchess flags that end decided games early; none by default).
# sprt: MAX_ROUNDS (20000 game pairs), FIXED=1 (no SPRT: exactly MAX_ROUNDS pairs), OUT (the log
#   and PGN, ./sprt-<time>). Exits 0 for H1, 1 for H0, 3 for neither, 5 if fastchess failed or
#   was stopped (no verdict, whatever games it played), 2 if it is missing.
# chunks: GAMES (2000), CHUNK (50 games), DATA (the chunks' PGNs and logs,
#   ~/patina-data/chunks/<ledger name>), SPRT="ELO0 ELO1" (an SPRT of the pooled chunks, tested
#   after each; GAMES is then the most it plays); chunk N plays with SRAND+N and, in sequential
#   order, from the first opening the ledger's games left unused. Run again, it goes on after the
#   last recorded chunk; a file DATA/pause holds it and DATA/stop ends it between chunks. Exits 0
#   for H1, 1 for H0, 3 if stopped, undecided after GAMES or out of openings, 4 if a chunk was
#   cut short, 5 if fastchess failed or played no games, 2 if the settings or binaries differ
#   from those the ledger's first line names.
# gauntlet: NAME (the ledgers' prefix, gauntlet-<bench>), TC (10+0.1), GAMES (200 an opponent),
#   OPPONENTS ("glaurung gnuchess toga2"; ethereal-chess too), LEDGERS (~/patina-data/matches),
#   ADJUDICATE (by default a win once both engines see 10 pawns for 3 moves, a draw from move 40
#   once both stay within 0.10 for 8 moves; empty: every game played out), and what chunks reads.
# levels: ELOS ("1500 2000 2500", each 1320 to 3000: Patina's range), STOCKFISH
#   (/usr/games/stockfish, Stockfish 15.1), TC (10+0.1), GAMES (200 a level), NAME
#   (levels-<binary's hash>), LEDGERS; no adjudication. Stockfish plays at the UCI_Elo whose
#   skill level its own 2023 calibration rates at Patina's level (stockfish_uci_elo): 15.1 still
#   has the 2019 formula, which its developers replaced a month after its release as "quite
#   inaccurate" (it calls skill 13.3 2500, the 2023 fit 2977). Stockfish plays a level's move
#   from its MultiPV search at depth 1 + int(skill), but the clock still matters to it: it
#   searches on after the pick, and the deeper entries that leaves in its hash table make the
#   next move's shallow search stronger. It must also reach the pick depth, which 2+0.02 does
#   not allow at the top.
# ablation: TC (2+0.02), ELO0 ELO1 (0 10), MAX_ROUNDS (100), DATA (~/patina-data). The tune build
#   is made from the working tree on every run and kept under its hash; a match that fails (an
#   exit code other than 0, 1 or 3) ends the run with its code.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"

# Prints the path of an unpacked opening book from ../shared/books (unzipped once into $BOOK_DIR).
book_path() {
  local name=$1
  local dir=${BOOK_DIR:-${TMPDIR:-/tmp}/patina-books}
  if [ ! -f "$dir/$name" ]; then
    mkdir -p "$dir"
    unzip -oq "$here/../../shared/books/$name.zip" -d "$dir" || { echo "cannot unpack book $name" >&2; exit 2; }
  fi
  echo "$dir/$name"
}

# Sets `order` to fastchess's -openings words for ORDER: random (the default) or sequential
# (the book in file order from opening START, default 1); refuses any other value.
opening_order() {
  case ${ORDER:-random} in
    random) order=(order=random) ;;
    sequential) order=(order=sequential start="${START:-1}") ;;
    *) echo "ORDER=\"$ORDER\": give random or sequential" >&2; exit 2 ;;
  esac
}

# Plays ROUNDS game pairs of NEW against BASE from the opening book $book, with the settings of
# the environment (see above) and any further fastchess words, into OUT/fastchess.log and
# OUT/games.pgn, printing the running results; returns fastchess's exit code, which is 1 when an
# engine, the book or an option fails to load and when it is stopped.
play_match() {
  local new=$1 base=$2 out=$3 rounds=$4 format limit order adjudicate srand=()
  shift 4
  format=pgn; [[ $book == *.epd ]] && format=epd
  opening_order
  read -r -a adjudicate <<< "${ADJUDICATE:-}"
  [ -z "${SRAND:-}" ] || srand=(-srand "$SRAND")
  # A fixed node count makes single-threaded engines deterministic: two builds that evaluate
  # alike play a game pair identically until their evaluations part.
  limit="tc=${TC:-8+0.08}"; [[ ${TC:-} == nodes=* ]] && limit=$TC
  # shellcheck disable=SC2086 # the option words
  "$FASTCHESS" \
    -engine cmd="$new" name=new ${NEW_OPTIONS:-} \
    -engine cmd="$base" name=base ${BASE_OPTIONS:-} \
    -each "$limit" option.Hash="${HASH:-16}" option.Threads="${THREADS:-1}" \
    -openings file="$book" format=$format "${order[@]}" "${srand[@]}" \
    "$@" "${adjudicate[@]}" \
    -rounds "$rounds" -games 2 -repeat -concurrency "${CONCURRENCY:-2}" -recover \
    -ratinginterval 50 -pgnout file="$out/games.pgn" 2>&1 | tee "$out/fastchess.log" \
    | grep -E "^(Elo|LLR|Games|Ptnml|SPRT|Results)"
  return "${PIPESTATUS[0]}"
}

sprt() {
  local new base elo0=${3:-0} elo1=${4:-5} out status=0 sprt
  new=$(realpath "$1"); base=$(realpath "$2")
  book=${BOOK:-$(book_path 8moves_v3.pgn)}
  out=${OUT:-sprt-$(date +%Y%m%d-%H%M%S)}
  mkdir -p "$out"
  sprt=(-sprt elo0="$elo0" elo1="$elo1" alpha=0.05 beta=0.05)
  [ "${FIXED:-0}" = 1 ] && sprt=()
  play_match "$new" "$base" "$out" "${MAX_ROUNDS:-20000}" "${sprt[@]}" || status=$?
  grep -E "^(Elo|LLR|Games|Ptnml)" "$out/fastchess.log" | tail -4 || true
  if [ "$status" -ne 0 ]; then
    echo "fastchess failed or was stopped (exit code $status): see $out/fastchess.log" >&2
    exit 5
  fi
  if grep -q "H1 was accepted" "$out/fastchess.log"; then echo "SPRT: H1 accepted"; exit 0; fi
  if grep -q "H0 was accepted" "$out/fastchess.log"; then echo "SPRT: H0 accepted"; exit 1; fi
  echo "SPRT: no decision"; exit 3
}

chunks() {
  local ledger new base games=${GAMES:-2000} chunk=${CHUNK:-50} data owner openings
  mkdir -p "$(dirname "$1")"
  ledger=$(realpath "$1"); new=$(realpath "$2"); base=$(realpath "$3")
  data=${DATA:-$HOME/patina-data/chunks/$(basename "$ledger" .tsv)}
  mkdir -p "$data"
  # A descriptor of its own: a caller's lock on 9 (generation.sh's) stays held.
  exec {chunks_lock}> "$data/lock"
  flock -n "$chunks_lock" || { echo "another match.sh chunks is playing into $data" >&2; exit 2; }
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
  book=${BOOK:-$(book_path 8moves_v3.pgn)}
  if [ "${ORDER:-random}" = sequential ]; then
    if [[ $book == *.epd ]]; then openings=$(grep -c '[^[:space:]]' "$book" || true)
    else openings=$(grep -c '^\[Event ' "$book" || true); fi
    [ "$openings" -gt 0 ] || { echo "no openings in $book" >&2; exit 2; }
  fi
  identify() { sha256sum "$1" | cut -c1-12; }
  local new_id base_id identity legacy
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
  local played verdict number start out status finished
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
    mkdir -p "$out"
    echo "== chunk $number: games $((played + 1))-$((played + chunk))"
    status=0
    # Each chunk its own seed, so that the chunks play other openings.
    SRAND=${SRAND:+$((SRAND + number))} START=$start \
      play_match "$new" "$base" "$out" $((chunk / 2)) || status=$?
    if [ "$status" -ne 0 ]; then
      echo "chunk $number: fastchess failed (exit code $status); not recorded (see $out/fastchess.log)" >&2
      exit 5
    fi
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
}

gauntlet() {
  local patina name opponent options
  patina=$(realpath "${1:-$here/../target/release/patina}")
  name=${NAME:-gauntlet-$("$patina" bench | tail -1 | cut -d' ' -f1)}
  export TC=${TC:-10+0.1} GAMES=${GAMES:-200}
  export ADJUDICATE=${ADJUDICATE-"-resign movecount=3 score=1000 twosided=true -draw movenumber=40 movecount=8 score=10"}
  for opponent in ${OPPONENTS:-glaurung gnuchess toga2}; do
    case $opponent in
      glaurung) options="option.Ponder=false option.OwnBook=false" ;;  # Threads is set to 1 for both
      gnuchess) options="args=--uci option.OwnBook=false" ;;
      toga2) options="option.OwnBook=false" ;;
      ethereal-chess) options="" ;;
      *) echo "unknown opponent $opponent" >&2; exit 2 ;;
    esac
    echo "== $opponent"
    # Each ledger numbers its chunks from 1, so each opponent needs a folder of its own; the
    # ledgers go under the DATA given, not under that folder.
    # shellcheck disable=SC2097,SC2098 # the ledger's path reads the DATA given, as meant
    DATA=${DATA:+$DATA/$name-$opponent} BASE_OPTIONS=$options "$here/match.sh" chunks \
      "${LEDGERS:-${DATA:-$HOME/patina-data}/matches}/$name-$opponent.tsv" "$patina" "/usr/games/$opponent"
  done
}

# Stockfish 15.1's UCI_Elo for a rating: the skill level that Stockfish's fit of January 2023
# (commit a08b8d4, master at 60+0.6 against Stash versions rated by CCRL; 1320 to 3190 over
# skills 0 to 19) gives the rating, turned into the UCI_Elo that 15.1's formula,
# skill = ((UCI_Elo - 1346.6) / 143.4)^(1 / 0.806), gives that skill. 15.1's lowest UCI_Elo,
# 1350, is skill 0.
stockfish_uci_elo() {
  awk -v elo="$1" 'BEGIN {
    e = (elo - 1320) / (3190 - 1320)
    skill = ((37.2473 * e - 40.8525) * e + 22.2943) * e - 0.311438
    uci_elo = skill > 0 ? 1346.6 + 143.4 * exp(0.806 * log(skill)) : 0
    printf "%d\n", uci_elo < 1350 ? 1350 : uci_elo + 0.5
  }'
}

levels() {
  local patina name elo stockfish ledgers
  patina=$(realpath "${1:-$here/../target/release/patina}")
  # Named by the binary, not the bench: a changed table of levels leaves the bench as it is.
  name=${NAME:-levels-$(sha256sum "$patina" | cut -c1-12)}
  ledgers=${LEDGERS:-${DATA:-$HOME/patina-data}/matches}
  export TC=${TC:-10+0.1} GAMES=${GAMES:-200} ADJUDICATE=
  for elo in ${ELOS:-1500 2000 2500}; do
    if ! [[ $elo =~ ^[0-9]+$ ]] || [ "$elo" -lt 1320 ] || [ "$elo" -gt 3000 ]; then
      echo "UCI_Elo $elo: Patina's levels run from 1320 to 3000" >&2
      exit 2
    fi
    stockfish=$(stockfish_uci_elo "$elo")
    echo "== UCI_Elo $elo against Stockfish 15.1's UCI_Elo $stockfish"
    # shellcheck disable=SC2097,SC2098 # the ledger's path reads the DATA given, as meant
    DATA=${DATA:+$DATA/$name-$elo} NEW_OPTIONS="option.UCI_LimitStrength=true option.UCI_Elo=$elo" \
      BASE_OPTIONS="option.UCI_LimitStrength=true option.UCI_Elo=$stockfish" "$here/match.sh" chunks \
      "$ledgers/$name-$elo.tsv" "$patina" "${STOCKFISH:-/usr/games/stockfish}"
    python3 "$here/games.py" ledger "$ledgers/$name-$elo.tsv"
  done
}

ablation() {
  local repo data bin names name status
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
      OUT=$data/ablation/$name "$here/match.sh" sprt "$bin" "$bin" "${ELO0:-0}" "${ELO1:-10}" || status=$?
    # H1 (0), H0 (1) and no decision (3) are results; anything else is a match that did not run.
    case $status in
      0 | 1 | 3) ;;
      *) echo "$name: the match failed (exit code $status); see $data/ablation/$name" >&2; exit "$status" ;;
    esac
  done
}

case ${1:-}:$# in
  sprt:[345] | chunks:4 | gauntlet:[12] | levels:[12] | ablation:*) ;;
  *) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2 ;;
esac
find_fastchess
mode=$1
shift
"$mode" "$@"
