#!/usr/bin/env bash
# One generation of the zero-knowledge pipeline, end to end and resumable:
#
#   1. datagen: self-play with the current default net (nets/DEFAULT) into $DATA/gen<K>/
#   2. train:   a candidate on the games of the last $WINDOW generations (checkpoints resume)
#               (a finished candidate is reused: move $DATA/train-gen<K+1> aside to train afresh,
#               e.g. on more games)
#   3. test:    SPRT candidate vs current default (scripts/match.sh chunks)
#   4. promote: on H1, copy the net into nets/, make it the default, record its lineage
#
# Usage: scripts/generation.sh [datagen]  (run from anywhere; re-run after a stop to resume)
# `datagen` runs step 1 alone: the self-play campaign that gathers the next generation's games
# in the background, at the lowest priority so that builds and matches come first; kill its
# datagen for a benchmark or a match that needs quiet cores, and run it again after:
#
#   mkdir -p ~/patina-data   # the log's folder, which the shell opens before the script runs
#   POSITIONS=30000000 THREADS=$(nproc) setsid nice -n 19 scripts/generation.sh datagen \
#     >> ~/patina-data/campaign.log 2>&1 &
#
# One run at a time per DATA: a run holds DATA/generation.lock (so do the datagen, trainer and
# match it started, which may outlive a killed run), and another is refused while it is held.
#
# Environment (defaults in brackets):
#   DATA [~/patina-data]   where games, training runs and binaries go (never into git)
#   POSITIONS [1000000]    self-play positions per generation     NODES [2500] soft nodes per move
#   THREADS [2]            datagen and trainer threads              WINDOW [2] generations of data
#   HIDDEN [the parent's]  the candidate's width N (128, 256, 512, 768, 1024): set it to grow the net
#                          (with INIT=1 the parent's neurons carry over, `trainer train --init`)
#   KING_BUCKETS [the parent's] the candidate's king buckets: 1 (none), 4, 8 or 16 (bullet's
#                          ChessBucketsMirrored with the engine's maps, nets/README.md)
#   FACTORISER [0]         1: train the candidate's king buckets with bullet's factoriser
#                          (merged into the net, which keeps its shape; the net id gains `f`)
#   INIT [0]               1: start the candidate from the parent's weights instead of random
#                          ones, a fine-tune (a plain parent starts every king bucket; the net
#                          id gains `-ft`); give it a lower LR, e.g. 0.0002
#   BUCKETS [the parent's] the candidate's output buckets by piece count (8: bullet's
#                          MaterialCount<8>; 1: a single output)
#   EPOCHS [5]             passes over the training positions (the trainer sizes the run to the
#                          data; on a few million positions, losses on held-out games turn up
#                          after 5-8 passes; 5 is the trainer's default, gen10's recipe);
#                          SUPERBATCHES fixes the length instead
#   BATCHES [25]           batches of 16384 per superbatch
#   LR [0.001]  LR_END [0.00001] cosine schedule   WDL [0.3 after gen 0, 1.0 for gen 0's data] λ
#   PRECISION [bf16]       the trainer's working rows (f32: bullet's arithmetic, as gen1–gen5)
#   TC [8+0.08]  ELO0 [0]  ELO1 [5]  MAX_ROUNDS [3000]  CHUNK [50]   the SPRT: at most
#                          MAX_ROUNDS game pairs, tested after each CHUNK games (match.sh chunks);
#                          undecided at MAX_ROUNDS is not promoted. Even a candidate that wins
#                          every game needs about 750/ELO1 pairs (150 at [0, 5], 17 at [0, 50]),
#                          so early generations, whose gains are large, decide sooner with a
#                          large ELO1. `touch DATA/sprt-gen<K>/chunks/stop` ends the match after
#                          the chunk in play; a re-run goes on from there
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
case ${1:-}:$# in
  :0 | datagen:1) ;;
  *) echo "usage: scripts/generation.sh [datagen]" >&2; exit 2 ;;
esac
DATA=${DATA:-$HOME/patina-data}
THREADS=${THREADS:-2}
mkdir -p "$DATA/bin"
exec 9> "$DATA/generation.lock"
flock -n 9 || { echo "$DATA/generation.lock is held: another generation.sh runs in $DATA, or a datagen, trainer or match that one started still does" >&2; exit 2; }

# Check the tools the last steps need before hours of self-play.
if [ $# -eq 0 ]; then
  # shellcheck source=lib.sh
  . "$repo/scripts/lib.sh"
  find_fastchess
  python3 -c "import tomllib, matplotlib" 2>/dev/null \
    || { echo "lineage.py needs Python 3.11+ and matplotlib: pip install -r scripts/requirements.txt" >&2; exit 2; }
fi

log() { echo "[$(date +%H:%M:%S)] $*"; }

# Under Linux's autogroup scheduling a niceness only ranks processes of one session: started with
# setsid (as above), the campaign is a session of its own and takes half the cores from a match
# or a build whatever its niceness. Giving the session the run's niceness makes it yield to them.
if [ -w /proc/self/autogroup ]; then
  echo "$(nice)" > /proc/self/autogroup 2>/dev/null || true
fi

# The lineage of a promoted net, from the arguments of `lineage.py record` saved one a line in
# FILE (its second line the net's name) before the default was switched; the file goes once done.
record_lineage() {
  local args
  mapfile -t args < "$1"
  python3 "$repo/scripts/lineage.py" record "${args[@]}"
  rm "$1"
}

parent_name=$(tr -d '[:space:]' < "$repo/nets/DEFAULT")
parent=$repo/nets/$parent_name
# Net names start with their generation: gen<K>-...
k=${parent_name#gen}; k=${k%%-*}
child=$((k + 1))
# A run killed after switching the default to its net, before the lineage was recorded.
pending=$DATA/train-gen$k/lineage-pending
if [ -f "$pending" ] && [ "$(sed -n 2p "$pending")" = "$parent_name" ]; then
  log "recording the lineage of $parent_name, whose promotion was cut short"
  record_lineage "$pending"
fi

# Binaries are built on every run (cargo rebuilds only what changed), so the SPRT base, the engine
# with the parent net embedded, always has the candidate's source.
bin=$DATA/bin/gen$child
log "building"
(cd "$repo" && EVALFILE="$parent" cargo build --release -p datagen -p trainer -p patina -q)
mkdir -p "$bin"
cp "$repo/target/release/datagen" "$repo/target/release/trainer" "$bin/"
cp "$repo/target/release/patina" "$bin/patina-base"
# The parent's king buckets, width N and output buckets as the engine reads them off the net
# (its build script knows the net format, which may change), not recomputed here: `bench nn`
# ends with `king buckets=<count>, N=<width>, buckets=<count>`.
shape=$("$bin/patina-base" bench nn 2>&1) || true
parent_king_buckets=$(sed -n 's/.*, king buckets=\([0-9][0-9]*\), N=[0-9]*, buckets=[0-9]*$/\1/p' <<< "$shape")
parent_hidden=$(sed -n 's/.*, N=\([0-9][0-9]*\), buckets=[0-9]*$/\1/p' <<< "$shape")
parent_buckets=$(sed -n 's/.*, buckets=\([0-9][0-9]*\)$/\1/p' <<< "$shape")
if [ -z "$parent_king_buckets" ] || [ -z "$parent_hidden" ] || [ -z "$parent_buckets" ]; then
  log "$bin/patina-base bench nn did not give the parent's shape: $shape"
  exit 1
fi
hidden=${HIDDEN:-$parent_hidden}
buckets=${BUCKETS:-$parent_buckets}
king_buckets=${KING_BUCKETS:-$parent_king_buckets}
log "parent $parent_name (generation $k), training generation $child, king buckets=$king_buckets, N=$hidden, buckets=$buckets"

# 1. Self-play with the parent (resumes an interrupted run in the same directory).
games=$DATA/gen$k
mkdir -p "$games"
"$bin/datagen" play --out "$games" --positions "${POSITIONS:-1000000}" --threads "$THREADS" \
  --nodes "${NODES:-2500}" --net "$parent" --seed "$((k * 1000 + 1))" > "$games/datagen.log" 2>&1 \
  || { log "datagen failed, see $games/datagen.log"; exit 1; }
"$bin/datagen" stats "$games"/*.vf | head -3
[ $# -eq 0 ] || exit 0

# 2. Train the candidate on the newest generations' games: each generation's directory, and
# any other of its net's self-play beside it as gen<g>-<name> (another recipe, e.g. fewer nodes;
# the lineage lists each directory with its recipe).
window=${WINDOW:-2}
viri=()
used=0  # generations whose games are still there
for g in $(seq $((k - window + 1)) "$k"); do
  [ "$g" -ge 0 ] || continue
  found=0
  for dir in "$DATA/gen$g" "$DATA/gen$g"-*; do
    compgen -G "$dir/*.vf" > /dev/null || continue
    for f in "$dir"/*.vf; do viri+=(--viri "$f"); done
    found=1
  done
  used=$((used + found))
  [ "$found" -eq 1 ] || log "no games of generation $g in $DATA/gen$g: training on fewer generations"
done
if [ "$k" -eq 0 ]; then default_wdl=1.0; else default_wdl=0.3; fi
run=$DATA/train-gen$child
net_id=gen$child-$hidden
[ "$king_buckets" -eq 1 ] || net_id=$net_id-kb$king_buckets
factoriser=()
if [ "${FACTORISER:-0}" = 1 ]; then factoriser=(--factoriser); net_id=${net_id}f; fi
init=()
if [ "${INIT:-0}" = 1 ]; then init=(--init "$parent"); net_id=$net_id-ft; fi
[ "$buckets" -eq 1 ] || net_id=$net_id-ob$buckets
# The lineage counts the games as training read them (lineage.py sources, saved in the run's
# folder beside its config and log): self-play may add to the same files while the SPRT waits.
save_sources() { python3 "$repo/scripts/lineage.py" sources --datagen "$bin/datagen" --train-dir "$run"; }
if [ ! -f "$run/$net_id.nnue" ]; then
  # shellcheck disable=SC2012 # the newest by time; the trainer names checkpoints plainly
  latest=$(ls -t "$run/$net_id"-*.ckpt 2>/dev/null | head -1 || true)
  if [ -n "$latest" ]; then
    log "resuming training from $latest"
    "$bin/trainer" train --resume "$latest" --out-dir "$run"
  else
    if [ -n "${SUPERBATCHES:-}" ]; then length=(--superbatches "$SUPERBATCHES"); else length=(--epochs "${EPOCHS:-5}"); fi
    log "training $net_id on $(( ${#viri[@]} / 2 )) files"
    "$bin/trainer" train "${viri[@]}" --out-dir "$run" --net-id "$net_id" --hidden "$hidden" --buckets "$buckets" --king-buckets "$king_buckets" "${factoriser[@]}" "${init[@]}" --threads "$THREADS" \
      "${length[@]}" --batches-per-superbatch "${BATCHES:-25}" --save-rate 5 \
      --lr-schedule cosine --lr "${LR:-0.001}" --lr-end "${LR_END:-0.00001}" --wdl "${WDL:-$default_wdl}" \
      --precision "${PRECISION:-bf16}" --seed "$child"
  fi
  save_sources
fi
candidate=$run/$net_id.nnue
if [ ! -f "$run/sources.json" ]; then
  log "$run has no sources.json (trained before the lineage saved one): counting its games now, with any self-play added since"
  save_sources
fi

# 3. SPRT: candidate against the parent, in chunks (match.sh chunks) whose tally survives a
# stop: a re-run goes on after the last finished chunk while the binaries and settings are the
# same, and starts the match afresh when they differ (a candidate trained again, say).
(cd "$repo" && EVALFILE="$candidate" cargo build --release -p patina -q)
cp "$repo/target/release/patina" "$bin/patina-candidate"
sprt_dir=$DATA/sprt-gen$child
sprt=("${ELO0:-0}" "${ELO1:-5}")
# What the games played so far stand for: the binaries and every setting of the games.
match_id=$(cat "$bin/patina-candidate" "$bin/patina-base" | sha256sum | cut -c1-16)
match_id+=" sprt [${sprt[*]}], tc ${TC:-8+0.08}, hash ${HASH:-16}, book ${BOOK:-8moves_v3.pgn},"
match_id+=" options [${NEW_OPTIONS:-}] [${BASE_OPTIONS:-}], adjudication [${ADJUDICATE:-}], srand [${SRAND:-}]"
if [ -e "$sprt_dir" ] && [ "$(cat "$sprt_dir/match-id" 2>/dev/null)" != "$match_id" ]; then
  superseded=$sprt_dir-superseded-$(date +%Y%m%d-%H%M%S)
  mv "$sprt_dir" "$superseded"
  log "the SPRT in $sprt_dir played other binaries or settings: kept as $superseded; starting afresh"
fi
mkdir -p "$sprt_dir"
[ -f "$sprt_dir/match-id" ] || echo "$match_id" > "$sprt_dir/match-id"
# THREADS here counts datagen's and the trainer's threads; each engine in the match gets one.
# The match runs in a process group of its own, which this script ends if it is stopped.
set +e
DATA=$sprt_dir/chunks SPRT="${sprt[*]}" GAMES=$((2 * ${MAX_ROUNDS:-3000})) CHUNK=${CHUNK:-50} \
  TC=${TC:-8+0.08} THREADS=1 ORDER=random \
  setsid "$repo/scripts/match.sh" chunks "$sprt_dir/ledger.tsv" "$bin/patina-candidate" "$bin/patina-base" &
match=$!
trap 'kill -TERM -- "-$match" 2>/dev/null || true' EXIT
wait "$match"
decision=$?
trap - EXIT
set -e
# An exit code counts as a verdict only with the verdict line of the test after the last chunk
# (match.sh exits 1 on any failure too).
verdict=$(tail -1 "$sprt_dir/chunks/sprt.txt" 2>/dev/null || true)
if [ $decision -eq 3 ] && [ -e "$sprt_dir/chunks/stop" ]; then
  log "the SPRT was stopped ($sprt_dir/chunks/stop): remove the file and re-run to go on"
  exit 1
fi
case $decision:$verdict in
  "0:SPRT: H1 accepted") ;;
  "1:SPRT: H0 accepted" | "3:SPRT: no decision")
    # H0, or undecided after 2 × MAX_ROUNDS games: set the candidate and its match aside, so
    # that a re-run with other settings trains afresh.
    rejected=rejected-$(date +%Y%m%d-%H%M%S)
    mv "$run" "$run-$rejected"
    mv "$sprt_dir" "$sprt_dir-$rejected"
    log "generation $child not promoted ($verdict), kept as $run-$rejected; re-run with other settings (e.g. a wider WINDOW)"
    exit 1 ;;
  *)
    log "the SPRT failed (match.sh exit code $decision, above; chunks in $sprt_dir/chunks): re-run to go on"
    exit 1 ;;
esac

# 4. Promote: the net into nets/, the default switched, then the lineage recorded, so that the
# lineage never names a net that is not the default: a run killed before the switch promotes
# again on a re-run (the SPRT reused), and one killed after it has its lineage recorded by the
# next run, from the arguments saved beside the training run.
hash=$(sha256sum "$candidate" | cut -c1-8)
name=$net_id-$hash.nnue
cp "$candidate" "$repo/nets/.$name.new"
mv "$repo/nets/.$name.new" "$repo/nets/$name"
printf '%s\n' --net "$name" --parent "$parent_name" --hidden "$hidden" --buckets "$buckets" --king-buckets "$king_buckets" "${factoriser[@]}" \
  --datagen "$bin/datagen" --window "$used" \
  --train-dir "$run" --sprt-ledger "$sprt_dir/ledger.tsv" --tc "${TC:-8+0.08}" --elo0 "${ELO0:-0}" --elo1 "${ELO1:-5}" \
  > "$run/lineage-pending"
echo "$name" > "$repo/nets/.DEFAULT.new"
mv "$repo/nets/.DEFAULT.new" "$repo/nets/DEFAULT"
record_lineage "$run/lineage-pending"
log "promoted $name; refit the WDL model (docs/scores.md), then commit nets/ to make it the default for everyone"
