#!/usr/bin/env bash
# What each group of search techniques gains: every patch in docs/ablations/ disables one group
# (a `false &&` in front of its condition, or a table that reads 0). For each, the engine is
# built from HEAD with and without the patch, and the full engine plays the ablated one through
# scripts/sprt.sh, so a pass (H1) means the group is worth at least ELO0 Elo.
#
#   scripts/ablation.sh [NAME ...]        (default: every docs/ablations/*.patch)
#
# Environment: TC (2+0.02: short, since on 2 cores a group at 8+0.08 costs hours), ELO0 ELO1
# (0 10), MAX_ROUNDS (100 pairs, then the match ends as a fixed-length one), DATA (build and
# match directories, ~/patina-data), and everything scripts/sprt.sh reads.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
data=${DATA:-$HOME/patina-data}
src=$data/ablation-src
# Binaries are kept per last commit that changed what goes into the engine or a patch.
bin=$data/ablation-bin/$(git -C "$repo" log -1 --format=%h -- engine nets Cargo.toml Cargo.lock .cargo docs/ablations)
mkdir -p "$bin"

if [ ! -d "$src" ]; then
  # A worktree whose folder went with ~/patina-data is still registered until pruned.
  git -C "$repo" worktree prune
  git -C "$repo" worktree add --detach "$src" HEAD >/dev/null
fi
git -C "$src" checkout -q --detach "$(git -C "$repo" rev-parse HEAD)"

# Builds the worktree as it stands into $bin/$1.
build() {
  git -C "$src" checkout -q -- .
  if [ -n "${2:-}" ]; then git -C "$src" apply "$2"; fi
  (cd "$src" && CARGO_TARGET_DIR=$data/ablation-target cargo build -q --release -p patina)
  cp "$data/ablation-target/release/patina" "$bin/$1"
  git -C "$src" checkout -q -- .
}

[ -x "$bin/full" ] || build full
names=("$@")
if [ ${#names[@]} -eq 0 ]; then
  for patch in "$repo"/docs/ablations/*.patch; do names+=("$(basename "$patch" .patch)"); done
fi
for name in "${names[@]}"; do
  [ -x "$bin/$name" ] || build "$name" "$repo/docs/ablations/$name.patch"
  echo "== $name: full engine vs $name, TC ${TC:-2+0.02}"
  # A match starts afresh, and fastchess appends to a PGN that is there.
  rm -rf "$data/ablation/$name"
  TC=${TC:-2+0.02} MAX_ROUNDS=${MAX_ROUNDS:-100} OUT=$data/ablation/$name \
    "$here/sprt.sh" "$bin/full" "$bin/$name" "${ELO0:-0}" "${ELO1:-10}" || true
done
