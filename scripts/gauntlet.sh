#!/usr/bin/env bash
# Gauntlet of a Patina binary against Debian's reference engines (see ../shared/LADDER.md).
#
#   scripts/gauntlet.sh [PATINA_BINARY]      (default target/release/patina)
#
# Environment: TC (10+0.1), ROUNDS (100 pairs = 200 games per opponent), OPPONENTS
# ("glaurung gnuchess toga2"), CONCURRENCY (2), OUT (directory, default ./gauntlet-<time>),
# ADJUDICATE (the fastchess flags that end decided games early; by default a win once both
# engines agree on 10 pawns or more for 3 moves each, a draw from move 40 once both stay
# within 0.10 for 8 moves each; set it empty to play every game out).
set -euo pipefail
here=$(dirname "$0")
. "$here/lib.sh"
find_fastchess

patina=$(realpath "${1:-target/release/patina}")
book=${BOOK:-$(book_path 8moves_v3.pgn)}
out=${OUT:-gauntlet-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$out"

args=(-engine cmd="$patina" name=patina)
for opponent in ${OPPONENTS:-glaurung gnuchess toga2}; do
  case $opponent in
    glaurung) args+=(-engine cmd=/usr/games/glaurung name=glaurung option.Threads=1 option.Ponder=false option.OwnBook=false) ;;
    gnuchess) args+=(-engine cmd=/usr/games/gnuchess args=--uci name=gnuchess option.OwnBook=false) ;;
    toga2) args+=(-engine cmd=/usr/games/toga2 name=toga2 option.OwnBook=false) ;;
    *) echo "unknown opponent $opponent" >&2; exit 2 ;;
  esac
done

read -r -a adjudicate <<< "${ADJUDICATE-"-resign movecount=3 score=1000 twosided=true -draw movenumber=40 movecount=8 score=10"}"

"$FASTCHESS" "${args[@]}" \
  -each tc="${TC:-10+0.1}" option.Hash=16 \
  "${adjudicate[@]}" \
  -tournament gauntlet -rounds "${ROUNDS:-100}" -games 2 -repeat -concurrency "${CONCURRENCY:-2}" -recover \
  -openings file="$book" format=pgn order=random -pgnout file="$out/games.pgn" \
  -ratinginterval 20 2>&1 | tee "$out/fastchess.log" | grep -E "^(Rank|Elo|Results| *[0-9]+ )" || true
