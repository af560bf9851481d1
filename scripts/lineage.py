#!/usr/bin/env python3
"""The nets' lineage: `record` appends a promoted net to nets/lineage.json and plots Elo by
generation (nets/elo-by-generation.png), which `plot` redraws. `sources`, run when training
ends, saves what the run's game files held then, for `record` to use after the SPRT."""

import argparse
import csv
import hashlib
import json
import math
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import games
import stats

NETS = Path(__file__).resolve().parent.parent / "nets"
LINEAGE = NETS / "lineage.json"
# What a training run's game files held when it ended (`sources`), in the run's folder.
SOURCES = "sources.json"
# A match without losses has a perfect score or nearly: its Elo is kept finite (+2400 at most).
EPS = 1e-6


def load():
    return json.loads(LINEAGE.read_text()) if LINEAGE.exists() else []


def match_stats(ledger, elo0, elo1):
    """The promotion SPRT's record from its ledger (match.sh chunks): W/D/L and game pairs of
    engine `new`, the Elo with its 95% error, and the LLR of the pentanomial test that decided it
    (games.py's, fastchess's model). Entries up to gen12 were computed from fastchess's game
    lines instead: the same Elo, but a trinomial error and a logistic LLR."""
    pool = games.Pool(ledger)
    if pool.unrecorded["results"]:
        sys.exit(f"{ledger}: {pool.unrecorded['results']} games without their results")
    counts = pool.pairs()
    pairs = sum(counts)
    if pairs == 0:
        sys.exit(f"{ledger}: no finished game pairs")
    mean, variance = stats.mean_and_variance(stats.PENTANOMIAL, counts)
    # Floored so that a match with every pair won keeps an interval.
    sd = math.sqrt(max(variance, 1e-4) / pairs)
    low, high = stats.elo_interval(mean, sd, EPS)
    lower, upper = stats.llr_bounds()
    return {
        "elo": stats.elo(mean, EPS),
        # Near a perfect score the upper side is unbounded: quote the distance to the lower bound.
        "error": (high - low) / 2 if mean + stats.Z95 * sd < 1 else stats.elo(mean, EPS) - low,
        "games": pool.totals["games"],
        "wdl": [pool.totals["wins"], pool.totals["draws"], pool.totals["losses"]],
        "pentanomial": counts,
        "llr": stats.normalized_llr(counts, elo0, elo1),
        "bounds": f"({lower:.2f}, {upper:.2f}) [{elo0}, {elo1}]",
        "abnormal_endings": sum(pool.totals[column] for column in games.LEDGER_ENDINGS),
    }


def lower_bound(wdl):
    """One-sided 95% lower bound on the Elo of a match with no losses, where the point estimate
    is infinite and a symmetric error bar means nothing."""
    w, d, l = wdl
    return stats.elo(stats.wilson_lower((w + 0.5 * d) / (w + d + l), w + d + l), EPS)


def record(args):
    net = NETS / args.net
    train = Path(args.train_dir)
    history = list(csv.DictReader((train / "log.csv").read_text().splitlines()))
    config = (train / "config.toml").read_text()
    entry = {
        "net": args.net,
        "sha256": hashlib.sha256(net.read_bytes()).hexdigest(),
        "hidden": args.hidden,
        "buckets": args.buckets,
        "king_buckets": args.king_buckets,
        "factoriser": args.factoriser,
        "parent": args.parent,
        "data": {
            "sources": saved_sources(train, args.datagen),
            "window_generations": args.window,
            "mate_scores_dropped": True,
        },
        "training": {
            "superbatches": len(history),
            "seconds": round(sum(float(r["seconds"]) for r in history), 1),
            "config": config,
            "final_train_loss": float(history[-1]["train_loss"]),
            "final_validation_loss": float(history[-1]["validation_loss"]),
        },
        "sprt": {"tc": args.tc, **match_stats(args.sprt_ledger, args.elo0, args.elo1)},
    }
    lineage = [e for e in load() if e["net"] != args.net] + [entry]
    LINEAGE.write_text(json.dumps(lineage, indent=2) + "\n")
    plot()


def saved_sources(train, datagen):
    """The sources `sources` saved in the training run's folder when training ended: self-play
    may add games to the same files while the SPRT waits. Counted now for a run without them."""
    saved = train / SOURCES
    if saved.exists():
        return json.loads(saved.read_text())
    return sources(datagen, tomllib.loads((train / "config.toml").read_text()))


def save_sources(args):
    train = Path(args.train_dir)
    config = tomllib.loads((train / "config.toml").read_text())
    # Written aside and renamed, so that a run killed meanwhile leaves no half a file to record.
    partial = train / (SOURCES + ".partial")
    partial.write_text(json.dumps(sources(args.datagen, config), indent=2) + "\n")
    partial.replace(train / SOURCES)


def sources(datagen, config):
    """The game files a training run read (its config's `viri`), by directory: counts by
    `datagen stats` of those files, and the directory's recipe (net, nodes per move, openings)
    and self-play time where datagen kept them (None where it did not)."""
    by_dir = {}
    for file in map(Path, config["viri"]):
        by_dir.setdefault(file.parent, []).append(file)
    result = []
    for games_dir, files in by_dir.items():
        counts = subprocess.run([datagen, "stats", *map(str, files)], capture_output=True, text=True,
                                check=True).stdout
        game_count, positions = re.search(r"(\d+) games, (\d+) positions", counts).groups()
        recipe = key_values(games_dir / "selfplay-recipe") or {}
        time = key_values(games_dir / "selfplay-time") or {}
        hours = lambda key: round(float(time[key]) / 3600, 2) if key in time else None
        result.append({
            "dir": games_dir.name,
            "files": len(files),
            "games": int(game_count),
            "positions": int(positions),
            "net": recipe.get("net"),
            "nodes_per_move": int(recipe["nodes"]) if "nodes" in recipe else None,
            "openings": recipe.get("openings"),
            "selfplay_thread_hours": hours("thread_seconds"),
            "selfplay_cpu_hours": hours("cpu_seconds"),
        })
    return result


def key_values(path):
    """The pairs of one of datagen's `key value` files (datagen/src/keyfile.rs); None if absent."""
    if not path.exists():
        return None
    pairs = [line.split(" ", 1) for line in path.read_text().splitlines()]
    if any(len(pair) != 2 for pair in pairs):
        raise SystemExit(f"{path}: expected `key value` lines")
    return dict(pairs)


def plot():
    """nets/elo-by-generation.png: each generation's Elo over generation 0. matplotlib is imported
    here alone, so that `record` fails on a missing matplotlib only after it wrote the entry."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    # A match without losses adds its lower bound (and no error): the sum stays a floor. The
    # errors of independent matches add in quadrature.
    cumulative, errors, total, variance = [0.0], [0.0], 0.0, 0.0
    for e in load():
        s = e["sprt"]
        unbounded = s["wdl"][2] == 0 and s["wdl"][0] > 0
        total += lower_bound(s["wdl"]) if unbounded else s["elo"]
        variance += 0.0 if unbounded else s["error"] ** 2
        cumulative.append(total)
        errors.append(math.sqrt(variance))
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.errorbar(range(len(cumulative)), cumulative, yerr=errors, marker="o", capsize=3)
    ax.set_xticks(range(len(cumulative)))
    ax.set_xlabel("generation")
    ax.set_ylabel("Elo over generation 0 (sum of SPRT estimates;\nlower bounds for matches without a loss)")
    ax.set_title("Patina: strength by generation")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(NETS / "elo-by-generation.png", dpi=100)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    rec = sub.add_parser("record")
    for name in ["net", "parent", "datagen", "train-dir", "sprt-ledger", "tc"]:
        rec.add_argument(f"--{name}", required=True)
    for name in ["hidden", "window"]:
        rec.add_argument(f"--{name}", required=True, type=int)
    rec.add_argument("--buckets", type=int, default=1)
    rec.add_argument("--king-buckets", type=int, default=1)
    rec.add_argument("--factoriser", action="store_true")
    for name in ["elo0", "elo1"]:
        rec.add_argument(f"--{name}", type=float, default=0.0 if name == "elo0" else 5.0)
    saved = sub.add_parser("sources")
    for name in ["datagen", "train-dir"]:
        saved.add_argument(f"--{name}", required=True)
    sub.add_parser("plot")
    args = parser.parse_args()
    {"record": record, "sources": save_sources, "plot": lambda _: plot()}[args.command](args)


if __name__ == "__main__":
    main()
