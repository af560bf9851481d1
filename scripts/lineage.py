#!/usr/bin/env python3
"""The nets' lineage: `record` appends a promoted net to nets/lineage.json; `render` rewrites the
lineage table in nets/README.md and plots Elo by generation (nets/elo-by-generation.png)."""

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

import stats

NETS = Path(__file__).resolve().parent.parent / "nets"
LINEAGE = NETS / "lineage.json"
BEGIN, END = "<!-- lineage:begin -->", "<!-- lineage:end -->"
# A match without losses has a perfect score or nearly: its Elo is kept finite (+2400 at most).
EPS = 1e-6


def load():
    return json.loads(LINEAGE.read_text()) if LINEAGE.exists() else []


def match_stats(log_text, elo0, elo1):
    """W/D/L of engine `new` from fastchess's game lines, with the Elo estimate, its 95% error
    and the GSPRT log-likelihood ratio, computed here (trinomial normal approximation, logistic
    Elo model): it decides lopsided early-generation matches, where fastchess's constrained MLE
    reports nothing. generation.sh runs fastchess without an SPRT, so this test alone decides;
    the logs of gen1–gen5, whose matches had fastchess's SPRT too, give fastchess's LLR where it
    decided."""
    w = d = l = 0
    for white, res in re.findall(r"^Finished game \d+ \((\w+) vs \w+\): (\S+)", log_text, re.M):
        if res == "1/2-1/2":
            d += 1
        elif res in ("1-0", "0-1"):
            if (res == "1-0") == (white == "new"):
                w += 1
            else:
                l += 1
    n = w + d + l
    if n == 0:
        # Exit 2, not 1: `verdict` uses 1 for "H0 accepted", and no games is no verdict.
        print("no finished games in the log", file=sys.stderr)
        sys.exit(2)
    score, variance = stats.mean_and_variance(stats.TRINOMIAL, (w, d, l))
    # Floored so that a match with every game won keeps a finite LLR.
    variance = max(variance, 1e-4)
    sd = math.sqrt(variance / n)
    low, high = stats.elo_interval(score, sd, EPS)
    llr = stats.logistic_llr(n, score, variance, elo0, elo1)
    if re.search(r"^SPRT .* completed - H[01] was accepted", log_text, re.M):
        llr = float(re.findall(r"^LLR: (-?[\d.]+)", log_text, re.M)[-1])
    lower, upper = stats.llr_bounds()
    return {
        "elo": stats.elo(score, EPS),
        # Near a perfect score the upper side is unbounded: quote the distance to the lower bound.
        "error": (high - low) / 2 if score + stats.Z95 * sd < 1 else stats.elo(score, EPS) - low,
        "games": n,
        "wdl": [w, d, l],
        "llr": llr,
        "bounds": f"({lower:.2f}, {upper:.2f}) [{elo0}, {elo1}]",
    }


def lower_bound(wdl):
    """One-sided 95% lower bound on the Elo of a match with no losses, where the point estimate
    is infinite and a symmetric error bar means nothing."""
    w, d, l = wdl
    return stats.elo(stats.wilson_lower((w + 0.5 * d) / (w + d + l), w + d + l), EPS)


def elo_text(s):
    if s["wdl"][2] == 0 and s["wdl"][0] > 0:
        return f"≥ {lower_bound(s['wdl']):+.0f} (95% lower bound; no losses)"
    return f"{s['elo']:+.1f} ± {s['error']:.1f}"


def record(args):
    net = NETS / args.net
    train = Path(args.train_dir)
    history = list(csv.DictReader((train / "log.csv").open()))
    config = (train / "config.toml").read_text()
    entry = {
        "net": args.net,
        "sha256": hashlib.sha256(net.read_bytes()).hexdigest(),
        "hidden": args.hidden,
        "buckets": args.buckets,
        "parent": args.parent,
        "data": {
            "sources": sources(args.datagen, tomllib.loads(config)),
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
        "sprt": {"tc": args.tc, **match_stats(Path(args.sprt_log).read_text(), args.elo0, args.elo1)},
    }
    lineage = [e for e in load() if e["net"] != args.net] + [entry]
    LINEAGE.write_text(json.dumps(lineage, indent=2) + "\n")


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
        games, positions = re.search(r"(\d+) games, (\d+) positions", counts).groups()
        recipe = key_values(games_dir / "selfplay-recipe") or {}
        time = key_values(games_dir / "selfplay-time") or {}
        hours = lambda key: round(float(time[key]) / 3600, 2) if key in time else None
        result.append({
            "dir": games_dir.name,
            "files": len(files),
            "games": int(games),
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


def data_text(data):
    """Where a net's training games came from. Nets recorded before every directory was listed
    name the newest generation's and count only its games."""
    if "sources" not in data:
        w = data["window_generations"]
        earlier = f" (+{w - 1} earlier)" if w > 1 else ""
        return (f"{data['games_dir']}{earlier}: {data['games']} games, {data['positions']} positions, "
                f"{data['nodes_per_move']} nodes/move, {data['random_plies']} random plies")
    def one(s):
        nodes = "? nodes/move" if s["nodes_per_move"] is None else f"{s['nodes_per_move']} nodes/move"
        return f"{s['dir']}: {s['games']} games, {s['positions']} positions, {nodes}"
    openings = {s["openings"] for s in data["sources"]}
    shared = f"; openings: {openings.pop()}" if len(openings) == 1 and None not in openings else ""
    return "; ".join(map(one, data["sources"])) + shared


def cost_text(data, training):
    """What the data and the training cost, where recorded."""
    parts = []
    if "sources" in data:
        def total(key):
            hours = [s.get(key) for s in data["sources"]]
            return round(sum(hours), 2) if hours and None not in hours else None
        threads, cpu = total("selfplay_thread_hours"), total("selfplay_cpu_hours")
        if threads is not None:
            parts.append(f"self-play {threads:g} thread-hours" + (f" ({cpu:g} CPU-hours)" if cpu is not None else ""))
    elif data.get("selfplay_thread_hours") is not None:
        parts.append(f"self-play {data['selfplay_thread_hours']:g} thread-hours")
    if training.get("seconds") is not None:
        parts.append(f"training {training['seconds']:g} s")
    return f"; {', '.join(parts)}" if parts else ""


def schedule_text(config):
    """Batches, LR and WDL-λ schedules and precision of a training run, from its saved config
    (configs from before the trainer had a bf16 mode have no `precision`: they were f32)."""
    lr, wdl = config["lr"], config["wdl"]
    if lr["kind"] == "cosine":
        rate = f"LR cosine {lr['start']:g} → {lr['end']:g}"
    elif lr["kind"] == "step":
        rate = f"LR {lr['start']:g} ×{lr['gamma']:g} every {lr['step']}"
    else:
        rate = f"LR {lr['value']:g}"
    lam = (f"λ {wdl['value']:g}" if wdl["kind"] == "constant"
           else f"λ {wdl.get('start', 0):g} → {wdl.get('end', 0):g}")
    return (f"{config['superbatches']} × {config['batches_per_superbatch']} batches of "
            f"{config['batch_size']}, {rate}, {lam}, {config.get('precision', 'f32')}")


def filter_text(config, data):
    """The position filter applied when the games were unpacked for training."""
    f = config["filter"]
    parts = [f"ply ≥ {f['min_ply']}", f"≥ {f['min_pieces']} pieces", f"score within ±{f['max_eval']}"]
    # Nets recorded since the trainer dropped mate scores say so; gen1–gen5 kept them.
    if data.get("mate_scores_dropped"):
        parts.append("no score beyond ±10000")
    parts += [name for key, name in (("filter_check", "not in check"), ("filter_tactical", "quiet best move"),
                                     ("filter_castling", "no castling move")) if f.get(key)]
    return ", ".join(parts)


def render(_args):
    lineage = load()
    rows = ["| net | N | buckets | parent | data | training | Elo vs parent |", "|---|---|---|---|---|---|---|"]
    for e in lineage:
        d, t, s = e["data"], e["training"], e["sprt"]
        config = tomllib.loads(t["config"])
        rows.append(
            f"| `{e['net']}` (sha256 {e['sha256'][:12]}…) | {e['hidden']} | {e.get('buckets', 1)} | `{e['parent']}` "
            f"| {data_text(d)}; {filter_text(config, d)} "
            f"| {schedule_text(config)}; final loss {t['final_train_loss']:.5f} (val {t['final_validation_loss']:.5f})"
            f"{cost_text(d, t)} "
            f"| {elo_text(s)} ({s['games']} games, W/D/L {'/'.join(map(str, s['wdl']))}, "
            f"LLR {s['llr']:.2f} {s['bounds']}, {s['tc']}) |"
        )
    readme = NETS / "README.md"
    text = readme.read_text()
    table = "\n".join([BEGIN, *rows, END])
    if BEGIN in text:
        text = re.sub(re.escape(BEGIN) + ".*?" + re.escape(END), lambda _: table, text, flags=re.S)
    else:
        text = text.rstrip() + "\n\n" + table + "\n"
    readme.write_text(text)

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    # A match without losses adds its lower bound (and no error): the sum stays a floor. The
    # errors of independent matches add in quadrature.
    cumulative, errors, total, variance = [0.0], [0.0], 0.0, 0.0
    for e in lineage:
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


def verdict_command(args):
    match = match_stats(Path(args.log).read_text(), args.elo0, args.elo1)
    print(f"W/D/L {match['wdl']}, Elo {match['elo']:+.1f} ± {match['error']:.1f}, LLR {match['llr']:.2f} {match['bounds']}")
    # The variance floor lets a handful of games cross a bound (one won game: LLR 35.7 at [0, 5]).
    if match["games"] < args.min_games:
        print(f"{match['games']} games, fewer than {args.min_games}: no verdict")
        sys.exit(3)
    decision = stats.decision(match["llr"])
    # The line a caller checks: Python's own failures exit 1 too, which is not H0.
    print(f"verdict: {decision or 'none'}")
    sys.exit({"H1": 0, "H0": 1, None: 3}[decision])


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    rec = sub.add_parser("record")
    for name in ["net", "parent", "datagen", "train-dir", "sprt-log", "tc"]:
        rec.add_argument(f"--{name}", required=True)
    for name in ["hidden", "window"]:
        rec.add_argument(f"--{name}", required=True, type=int)
    rec.add_argument("--buckets", type=int, default=1)
    for name in ["elo0", "elo1"]:
        rec.add_argument(f"--{name}", type=float, default=0.0 if name == "elo0" else 5.0)
    sub.add_parser("render")
    verdict = sub.add_parser("verdict", help="exit 0 (and a last line `verdict: H1`) if the match log accepts H1, 1 (`verdict: H0`) if H0, 3 if undecided "
                             "(or it has fewer than --min-games games), 2 if it has no games")
    verdict.add_argument("--log", required=True)
    verdict.add_argument("--elo0", type=float, default=0.0)
    verdict.add_argument("--elo1", type=float, default=5.0)
    verdict.add_argument("--min-games", type=int, default=0, help="fewer finished games are no verdict (exit 3)")
    args = parser.parse_args()
    {"record": record, "render": render, "verdict": verdict_command}[args.command](args)


if __name__ == "__main__":
    main()
