#!/usr/bin/env python3
"""Summaries of fastchess PGN files, from the engine's side.

    scripts/games.py results [--engine NAME] GAMES.pgn [...]   W/D/L and Elo ± 95% per opponent
    scripts/games.py endings [--engine NAME] GAMES.pgn [...]   how games ended, per time control

`endings` is the record of time forfeits, illegal moves and crashes that issue 4 asks to be zero
over thousands of games: fastchess's `time forfeit`, `illegal move` and `abandoned` (a crash or a
stall), each split by who lost it (`unknown` when the game was not scored). The engine is
matched by the prefix of its name.
"""
import argparse
import collections
import math
import re
import sys

TAG = re.compile(r'^\[(\w+) "(.*)"\]\s*$')
ABNORMAL = ("time forfeit", "illegal move", "abandoned")
SCORE = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}


def games(paths):
    """Yields the tag dictionary of every game in the PGN files."""
    for path in paths:
        tags = {}
        with open(path, encoding="utf-8", errors="replace") as pgn:
            for line in pgn:
                match = TAG.match(line)
                if match:
                    if match.group(1) == "Event" and tags:
                        yield tags
                        tags = {}
                    tags[match.group(1)] = match.group(2)
        if tags:
            yield tags


def elo(score):
    return -400 * math.log10(1 / score - 1) if 0 < score < 1 else math.copysign(math.inf, score - 0.5)


def results(args):
    """W/D/L per opponent, with Elo and its 95% interval from the trinomial variance of the score."""
    wdl = collections.defaultdict(lambda: [0, 0, 0])
    for tags in games(args.pgn):
        white, black = tags.get("White", ""), tags.get("Black", "")
        if tags.get("Result") not in SCORE or white.startswith(args.engine) == black.startswith(args.engine):
            continue
        ours = SCORE[tags["Result"]] if white.startswith(args.engine) else 1 - SCORE[tags["Result"]]
        wdl[black if white.startswith(args.engine) else white][int(2 - 2 * ours)] += 1
    if not wdl:
        sys.exit(f"no finished games of {args.engine} found")
    print("| opponent | games | W / D / L | score | Elo (95%) |")
    print("|---|---:|---|---:|---|")
    for opponent, (w, d, l) in sorted(wdl.items()):
        n = w + d + l
        s = (w + d / 2) / n
        sd = math.sqrt((w * (1 - s) ** 2 + d * (0.5 - s) ** 2 + l * s**2) / n / n)
        low, high = elo(max(s - 1.96 * sd, 1e-9)), elo(min(s + 1.96 * sd, 1 - 1e-9))
        print(f"| {opponent} | {n} | {w} / {d} / {l} | {100 * s:.1f}% | {elo(s):+.0f} [{low:+.0f}, {high:+.0f}] |")


def endings(args):
    counts = collections.defaultdict(collections.Counter)
    for tags in games(args.pgn):
        control = counts[tags.get("TimeControl", "?")]
        control["games"] += 1
        ending = tags.get("Termination", "normal")
        if ending in ABNORMAL:
            loser = {"1-0": tags.get("Black"), "0-1": tags.get("White")}.get(tags.get("Result"))
            who = "unknown" if loser is None else args.engine if loser.startswith(args.engine) else "opponent"
            control[f"{ending} ({who})"] += 1
        else:
            control["normal or adjudicated"] += 1
    if not counts:
        sys.exit("no games found")
    columns = ["games", "normal or adjudicated"] + [
        f"{ending} ({who})" for ending in ABNORMAL for who in (args.engine, "opponent", "unknown")
    ]
    print("| time control | " + " | ".join(columns) + " |")
    print("|---" * (len(columns) + 1) + "|")
    for control, count in sorted(counts.items()):
        print(f"| {control} | " + " | ".join(str(count[c]) for c in columns) + " |")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    for name, function in (("results", results), ("endings", endings)):
        command = sub.add_parser(name)
        command.add_argument("--engine", default="patina", help="whose games (name prefix)")
        command.add_argument("pgn", nargs="+")
        command.set_defaults(run=function)
    args = parser.parse_args()
    args.run(args)


if __name__ == "__main__":
    main()
