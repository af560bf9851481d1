#!/usr/bin/env bash
# SPRT of a new engine build against a base build with fastchess.
#
#   scripts/sprt.sh NEW_BINARY BASE_BINARY [ELO0 ELO1]
#
# Defaults: elo0=0 elo1=5 (a gain); use "-5 0" for a simplification. Environment:
#   TC (8+0.08; `nodes=N` plays N nodes a move instead of a clock), HASH (16), THREADS (1), CONCURRENCY (2), BOOK (8moves_v3.pgn),
#   MAX_ROUNDS (20000 game pairs), NEW_OPTIONS / BASE_OPTIONS (extra "option.X=Y" words),
#   OUT (directory for the log and PGN, default ./sprt-<time>), FIXED=1 (no SPRT: exactly
#   MAX_ROUNDS pairs, e.g. to count time losses over a set number of games), ADJUDICATE
#   (fastchess flags that end decided games early; none by default), SRAND (the seed of the
#   opening order; fastchess's own by default), ORDER=sequential (the book's openings in file
#   order from opening START, default 1, instead of a random order).
# Prints the final result; exits 0 if H1 was accepted, 1 if H0, 3 if neither (rounds ran out),
# 5 if fastchess failed or was stopped (an engine, the book or an option it could not load: no
# verdict, whatever games it played), 2 if it is missing.
set -euo pipefail
here=$(dirname "$0")
. "$here/lib.sh"
find_fastchess

new=$(realpath "$1"); base=$(realpath "$2")
elo0=${3:-0}; elo1=${4:-5}
book=${BOOK:-$(book_path 8moves_v3.pgn)}
format=pgn; [[ $book == *.epd ]] && format=epd
out=${OUT:-sprt-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$out"
sprt=(-sprt elo0="$elo0" elo1="$elo1" alpha=0.05 beta=0.05)
[ "${FIXED:-0}" = 1 ] && sprt=()
read -r -a adjudicate <<< "${ADJUDICATE:-}"
srand=(); [ -n "${SRAND:-}" ] && srand=(-srand "$SRAND")
opening_order
# A fixed node count makes single-threaded engines deterministic: two builds that evaluate alike
# play a game pair identically until their evaluations part.
limit="tc=${TC:-8+0.08}"; [[ ${TC:-} == nodes=* ]] && limit=$TC

# The exit code of fastchess, not of the pipeline's last command.
set +e
# shellcheck disable=SC2086
"$FASTCHESS" \
  -engine cmd="$new" name=new ${NEW_OPTIONS:-} \
  -engine cmd="$base" name=base ${BASE_OPTIONS:-} \
  -each "$limit" option.Hash="${HASH:-16}" option.Threads="${THREADS:-1}" \
  -openings file="$book" format=$format "${order[@]}" "${srand[@]}" \
  "${sprt[@]}" "${adjudicate[@]}" \
  -rounds "${MAX_ROUNDS:-20000}" -games 2 -repeat -concurrency "${CONCURRENCY:-2}" -recover \
  -ratinginterval 50 -pgnout file="$out/games.pgn" 2>&1 | tee "$out/fastchess.log" | grep -E "^(Elo|LLR|Games|Ptnml|SPRT|Results)"
status=${PIPESTATUS[0]}
set -e

grep -E "^(Elo|LLR|Games|Ptnml)" "$out/fastchess.log" | tail -4 || true
# fastchess exits 1 when an engine, the book or an option fails to load, and when it is stopped.
if [ "$status" -ne 0 ]; then
  echo "fastchess failed or was stopped (exit code $status): see $out/fastchess.log" >&2
  exit 5
fi
if grep -q "H1 was accepted" "$out/fastchess.log"; then echo "SPRT: H1 accepted"; exit 0; fi
if grep -q "H0 was accepted" "$out/fastchess.log"; then echo "SPRT: H0 accepted"; exit 1; fi
echo "SPRT: no decision"; exit 3
