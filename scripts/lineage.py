#!/usr/bin/env python3
"""The nets' lineage: `record` appends a promoted net to nets/lineage.json; `render` rewrites the
lineage table in nets/README.md and plots Elo by generation (nets/elo-by-generation.png)."""

import argparse
import csv
import hashlib
import json
import re
import subprocess
import sys
from pathlib import Path

NETS = Path(__file__).resolve().parent.parent / "nets"
LINEAGE = NETS / "lineage.json"
BEGIN, END = "<!-- lineage:begin -->", "<!-- lineage:end -->"


def load():
    return json.loads(LINEAGE.read_text()) if LINEAGE.exists() else []


def sprt_result(log_text):
    """Last Elo, games and LLR lines of a fastchess log."""
    elo = re.findall(r"^Elo: (-?[\d.]+) \+/- ([\d.]+|nan|inf)", log_text, re.M)
    games = re.findall(r"^Games: (\d+), Wins: (\d+), Losses: (\d+), Draws: (\d+)", log_text, re.M)
    llr = re.findall(r"^LLR: (-?[\d.]+) .*?(\[[^\]]*\])", log_text, re.M)
    if not (elo and games and llr):
        sys.exit("the SPRT log has no final Elo/Games/LLR lines")
    return {
        "elo": float(elo[-1][0]),
        "error": elo[-1][1],
        "games": int(games[-1][0]),
        "wdl": [int(games[-1][1]), int(games[-1][3]), int(games[-1][2])],
        "llr": float(llr[-1][0]),
        "bounds": llr[-1][1],
    }


def record(args):
    net = NETS / args.net
    stats = subprocess.run([args.datagen, "stats", *sorted(map(str, Path(args.games_dir).glob("*.vf")))],
                           capture_output=True, text=True, check=True).stdout
    files_games_positions = re.search(r"(\d+) games, (\d+) positions", stats)
    train = Path(args.train_dir)
    history = list(csv.DictReader((train / "log.csv").open()))
    config = (train / "config.toml").read_text()
    entry = {
        "net": args.net,
        "sha256": hashlib.sha256(net.read_bytes()).hexdigest(),
        "hidden": args.hidden,
        "parent": args.parent,
        "data": {
            "games_dir": Path(args.games_dir).name,
            "window_generations": args.window,
            "games": int(files_games_positions.group(1)),
            "positions": int(files_games_positions.group(2)),
            "nodes_per_move": args.nodes,
            "random_plies": "8-9",
            "filters": "viriformat default: ply >= 16, not in check, best move quiet, |score| bounded",
        },
        "training": {
            "superbatches": len(history),
            "config": config,
            "final_train_loss": float(history[-1]["train_loss"]),
            "final_validation_loss": float(history[-1]["validation_loss"]),
        },
        "sprt": {"tc": args.tc, **sprt_result(Path(args.sprt_log).read_text())},
    }
    lineage = [e for e in load() if e["net"] != args.net] + [entry]
    LINEAGE.write_text(json.dumps(lineage, indent=2) + "\n")


def render(_args):
    lineage = load()
    rows = ["| net | N | parent | data | training | Elo vs parent |", "|---|---|---|---|---|---|"]
    for e in lineage:
        d, t, s = e["data"], e["training"], e["sprt"]
        rows.append(
            f"| `{e['net']}` (sha256 {e['sha256'][:12]}…) | {e['hidden']} | `{e['parent']}` "
            f"| {d['games_dir']} (+{d['window_generations'] - 1} earlier): {d['games']} games, {d['positions']} positions, "
            f"{d['nodes_per_move']} nodes/move, {d['random_plies']} random plies "
            f"| {t['superbatches']} superbatches, final loss {t['final_train_loss']:.5f} (val {t['final_validation_loss']:.5f}) "
            f"| {s['elo']:+.1f} ± {s['error']} ({s['games']} games, W/D/L {'/'.join(map(str, s['wdl']))}, "
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

    elo, errors, total = [0.0], [0.0], 0.0
    for e in lineage:
        total += e["sprt"]["elo"]
        elo.append(total)
        err = e["sprt"]["error"]
        errors.append(float(err) if re.fullmatch(r"[\d.]+", err) else 0.0)
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.errorbar(range(len(elo)), elo, yerr=errors, marker="o", capsize=3)
    ax.set_xlabel("generation")
    ax.set_ylabel("Elo relative to generation 0 (sum of SPRT estimates)")
    ax.set_title("Patina: strength by generation")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(NETS / "elo-by-generation.png", dpi=100)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    rec = sub.add_parser("record")
    for name in ["net", "parent", "games-dir", "datagen", "train-dir", "sprt-log", "tc"]:
        rec.add_argument(f"--{name}", required=True)
    for name in ["hidden", "nodes", "window"]:
        rec.add_argument(f"--{name}", required=True, type=int)
    sub.add_parser("render")
    args = parser.parse_args()
    {"record": record, "render": render}[args.command](args)


if __name__ == "__main__":
    main()
