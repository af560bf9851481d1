#!/usr/bin/env bash
# Endgame drills as self-play reinforcement, for an ending that games from the opening seldom
# reach (docs/datagen.md, "Endgame drills"). Net 0 is START_NET; step k = 1..STEPS:
#
#   1. drills:  net k-1 plays GAMES games from random placements of MATERIAL    ($DATA/games-<k-1>)
#   2. train:   net 0 fine-tuned on all drills so far, anchored by ORDINARY     ($DATA/net-<k>.nnue)
#   3. measure: net k on both sides from the won starts of BOOK                    ($DATA/measure-<k>)
#
# Only the drills accumulate: every step starts again from net 0, so a step's fine-tune cannot
# carry the last one's drift in ordinary play onwards (chained fine-tunes, each from the last
# net, converted less and drifted more). ORDINARY, games of ordinary play (a viriformat file or
# folder, such as the start net's self-play), are the fine-tune's anchors (`trainer train
# --anchor`): scored by net 0 itself, they hold each step to net 0's judgement away from the
# drilled ending, and as the held-out set their validation loss shows how far a step strays
# from it. The table at the end lists every step: the drill games' results, the mates from won
# starts (W + L: the lone king never wins) and the validation loss. Every net plays alone
# (`--endgame-net none`): the embedded endgame net would otherwise play the drilled ending.
# Resumable: run the same command again; a step whose net or measurement is there is not redone.
#
# Usage: ORDINARY=DIR scripts/drills.sh START_NET STEPS
# Environment (defaults in brackets):
#   DATA [~/patina-data/drills-$MATERIAL]   MATERIAL [KBNvK]   THREADS [2] datagen and trainer threads
#   GAMES [8000] drill games per step       NODES [2500] soft nodes a move in the drills
#   EPOCHS [6]  LR [0.00003]  LR_END [0.000001] (cosine)  WDL [0.3]  the fine-tune
#   CONFIG [none]  a trainer settings file for what has no flag (e.g. `[filter]` settings)
#   TRAIN_BUCKETS [none: the whole net]  train only these output buckets (`--train-buckets`):
#   the drilled ending's, so that no other position's evaluation changes; ORDINARY then anchors
#   with its positions of those buckets only
#   BOOK [scripts/books/kbnvk-won.epd]  MEASURE_NODES [20000]  MEASURE_GAMES [150]  the measurement,
#   one thread, seed 780, so every net plays the same starts
#   BIN [target/release, built]  the folder of the datagen and trainer binaries to run
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
[ $# -eq 2 ] || { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }
start_net=$1 steps=$2
[ -f "$start_net" ] || { echo "no net $start_net" >&2; exit 2; }
[ -e "${ORDINARY:-}" ] || { echo "ORDINARY must name games of ordinary play (a .vf file or folder)" >&2; exit 2; }
MATERIAL=${MATERIAL:-KBNvK}
DATA=${DATA:-$HOME/patina-data/drills-$MATERIAL}
THREADS=${THREADS:-2}
BOOK=${BOOK:-$repo/scripts/books/kbnvk-won.epd}
GAMES=${GAMES:-8000} NODES=${NODES:-2500}
MEASURE_NODES=${MEASURE_NODES:-20000} MEASURE_GAMES=${MEASURE_GAMES:-150}
mkdir -p "$DATA"
exec 9> "$DATA/drills.lock"
flock -n 9 || { echo "$DATA/drills.lock is held: another drills.sh runs in $DATA" >&2; exit 2; }

log() { echo "[$(date +%H:%M:%S)] $*"; }
if [ -z "${BIN:-}" ]; then
  (cd "$repo" && cargo build --release -p datagen -p trainer -q)
  BIN=$repo/target/release
fi
datagen=$BIN/datagen trainer=$BIN/trainer

# `datagen stats` starts "F files, G games, ..."; this sed script prints G.
games_line='1s/^[0-9]* files*, \([0-9]*\) games.*/\1/p'
# Games a folder of viriformat files holds.
games_in() {
  compgen -G "$1/*.vf" > /dev/null || { echo 0; return; }
  "$datagen" stats "$1"/*.vf | sed -n "$games_line"
}

[ -f "$DATA/net-0.nnue" ] || cp "$start_net" "$DATA/net-0.nnue"
cmp -s "$start_net" "$DATA/net-0.nnue" || { echo "$DATA holds the drills of another start net" >&2; exit 2; }
# Steps fine-tuned before ORDINARY became anchors trained on it as data: another recipe.
if compgen -G "$DATA/net-[1-9]*.nnue" > /dev/null && [ ! -e "$DATA/anchored" ]; then
  echo "$DATA holds steps fine-tuned with ORDINARY as training data, not as anchors: start a new" \
    "DATA (copying its games-* folders keeps the drills)" >&2
  exit 2
fi
touch "$DATA/anchored"

measure() {
  local k=$1 out=$DATA/measure-$1
  [ -f "$out.txt" ] && return
  log "measuring net $k: $MEASURE_GAMES games from $BOOK at $MEASURE_NODES nodes"
  "$datagen" play --out "$out" --net "$DATA/net-$k.nnue" --endgame-net none --book "$BOOK" --random-plies 0 \
    --max-opening-score 32000 --win-score 30000 --nodes "$MEASURE_NODES" \
    --games "$MEASURE_GAMES" --threads 1 --seed 780 2> "$out.log"
  "$datagen" stats "$out"/*.vf | sed -n 2p > "$out.tmp" && mv "$out.tmp" "$out.txt"
}

measure 0
for k in $(seq 1 "$steps"); do
  if [ ! -f "$DATA/net-$k.nnue" ]; then
    prev=$((k - 1)) drills=$DATA/games-$((k - 1))
    if [ "$(games_in "$drills")" -lt "$GAMES" ]; then
      log "net $prev plays $GAMES $MATERIAL drills"
      "$datagen" play --out "$drills" --net "$DATA/net-$prev.nnue" --endgame-net none --games "$GAMES" \
        --threads "$THREADS" --material "$MATERIAL" --win-score 30000 --nodes "$NODES" \
        --seed $((2101 + 100 * prev)) 2> "$drills.log"
    fi
    run=$DATA/train-$k
    latest=$(ls -t "$run"/drill-$k-*.ckpt 2>/dev/null | head -1 || true)
    if [ -f "$run/drill-$k.nnue" ]; then
      :  # trained; stopped before the copy below
    elif [ -n "$latest" ]; then
      log "resuming the fine-tune from $latest"
      "$trainer" train --resume "$latest" --out-dir "$run" > "$run.log"
    else
      viri=()
      for g in $(seq 0 $prev); do viri+=(--viri "$DATA/games-$g"); done
      log "fine-tuning net 0 on drills 0..$prev, anchored by $ORDINARY"
      "$trainer" train ${CONFIG:+--config "$CONFIG"} \
        ${TRAIN_BUCKETS:+--train-buckets "$TRAIN_BUCKETS"} --init "$DATA/net-0.nnue" "${viri[@]}" \
        --anchor "$ORDINARY" --out-dir "$run" --net-id drill-$k --threads "$THREADS" \
        --epochs "${EPOCHS:-6}" --batches-per-superbatch 25 --save-rate 10 --lr-schedule cosine \
        --lr "${LR:-0.00003}" --lr-end "${LR_END:-0.000001}" --wdl "${WDL:-0.3}" --seed "$k" \
        --validation 100000 > "$run.log"
    fi
    cp "$run/drill-$k.nnue" "$DATA/net-$k.tmp" && mv "$DATA/net-$k.tmp" "$DATA/net-$k.nnue"
  fi
  measure "$k"
done

# One row a step.
printf 'net\tsha256\tdrill games it played (W/D/L)\tmates from won starts\tvalidation loss (anchors)\n'
for k in $(seq 0 "$steps"); do
  played=-
  if compgen -G "$DATA/games-$k/*.vf" > /dev/null; then
    played=$("$datagen" stats "$DATA/games-$k"/*.vf \
      | sed -n -e "$games_line" -e '2s/^W\/D\/L \([^ ]*\).*/(\1)/p' | paste -sd' ')
  fi
  mates=$(sed -n 's/^W\/D\/L \([0-9]*\)\/\([0-9]*\)\/\([0-9]*\).*/\1 \2 \3/p' "$DATA/measure-$k.txt" \
    | awk '{print $1 + $3 " of " $1 + $2 + $3}')
  loss=-
  [ -f "$DATA/train-$k/log.csv" ] && loss=$(tail -1 "$DATA/train-$k/log.csv" | cut -d, -f3)
  printf '%s\t%s\t%s\t%s\t%s\n' "$k" "$(sha256sum "$DATA/net-$k.nnue" | cut -c1-12)" "$played" \
    "$mates" "$loss"
done
