#!/usr/bin/env bash
# The self-play campaign: datagen with the default net (nets/DEFAULT) into $DATA/gen<K>/, the
# directory and seed that scripts/generation.sh's first step uses, at the lowest priority, so
# that builds and matches come first. Resumable: run it again after a stop, a kill or
# a reboot and it carries on from the whole games on disk. Stop it (kill its datagen) for a
# benchmark or match that needs quiet cores; generation.sh waits for nobody and refuses a
# directory a campaign holds.
#
#   setsid scripts/campaign.sh >> ~/patina-data/campaign.log 2>&1 &
#
# Environment: DATA [~/patina-data], POSITIONS [30000000] (the directory's target), NODES [2500],
# THREADS [every core].
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
DATA=${DATA:-$HOME/patina-data}
net_name=$(tr -d '[:space:]' < "$repo/nets/DEFAULT")
k=${net_name#gen}; k=${k%%-*}

# A copy of the binary, so that rebuilding the repository never changes a running campaign.
(cd "$repo" && cargo build --release -q -p datagen)
mkdir -p "$DATA/bin" "$DATA/gen$k"
# Renamed into place: a running campaign's binary cannot be written over, only replaced.
cp "$repo/target/release/datagen" "$DATA/bin/.datagen-campaign.new"
mv -f "$DATA/bin/.datagen-campaign.new" "$DATA/bin/datagen-campaign"
echo "[$(date '+%F %T')] campaign: $net_name into $DATA/gen$k"
exec nice -n 19 "$DATA/bin/datagen-campaign" play --out "$DATA/gen$k" \
  --positions "${POSITIONS:-30000000}" --threads "${THREADS:-$(nproc)}" --nodes "${NODES:-2500}" \
  --net "$repo/nets/$net_name" --seed $((k * 1000 + 1))
