#!/usr/bin/env bash
# Gauntlet of a Patina binary against Debian's reference engines (see ../shared/LADDER.md): one
# match per opponent, each played by scripts/chunks.sh into its own ledger, so a gauntlet can
# pause and resume across restarts. The results, per opponent:
#   scripts/games.py ledger ~/patina-data/matches/<NAME>-<opponent>.tsv   (LEDGERS moves them)
#
#   scripts/gauntlet.sh [PATINA_BINARY]      (default the repository's target/release/patina)
#
# Environment: NAME (the ledgers' prefix, default gauntlet-<bench signature>), TC (10+0.1),
# GAMES (200 per opponent), OPPONENTS ("glaurung gnuchess toga2"; ethereal-chess is known too),
# ADJUDICATE (the fastchess flags that end decided games early; by default a win once both
# engines agree on 10 pawns or more for 3 moves each, a draw from move 40 once both stay within
# 0.10 for 8 moves each; set it empty to play every game out), and what chunks.sh and sprt.sh
# read (CHUNK, DATA, ...). chunks.sh knows the binaries by SHA-256: a rebuilt binary whose bytes
# differ is refused by the ledgers even with the same bench, so give it a NAME of its own.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)

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
  # chunks.sh numbers every ledger's chunks from 1, so each opponent needs a folder of its own.
  DATA=${DATA:+$DATA/$name-$opponent} BASE_OPTIONS=$options "$here/chunks.sh" "${LEDGERS:-${DATA:-$HOME/patina-data}/matches}/$name-$opponent.tsv" "$patina" "/usr/games/$opponent"
done
