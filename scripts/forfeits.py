#!/usr/bin/env python3
"""Counts how fastchess games ended, per time control: the record of time forfeits, illegal
moves and crashes (issue 4 asks for zero of each over thousands of games).

    scripts/forfeits.py [--engine NAME] GAMES.pgn [...]

For every TimeControl tag it prints the games, those ended normally or by adjudication, and
the abnormal endings (fastchess's `time forfeit`, `illegal move`, `abandoned` for a crash or a
stall), each with who lost it: the named engine (by the prefix of its name) or its opponent.
"""
import argparse
import collections
import re
import sys

TAG = re.compile(r'^\[(\w+) "(.*)"\]\s*$')
ABNORMAL = ("time forfeit", "illegal move", "abandoned")


def games(path):
    """Yields the tag dictionary of every game in a PGN file."""
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


def loser(tags):
    return {"1-0": tags.get("Black"), "0-1": tags.get("White")}.get(tags.get("Result"))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engine", default="patina", help="whose losses to single out")
    parser.add_argument("pgn", nargs="+")
    args = parser.parse_args()

    counts = collections.defaultdict(collections.Counter)
    for path in args.pgn:
        for tags in games(path):
            control = counts[tags.get("TimeControl", "?")]
            control["games"] += 1
            ending = tags.get("Termination", "normal")
            if ending in ABNORMAL:
                side = loser(tags) or ""
                who = args.engine if side.startswith(args.engine) else "opponent"
                control[f"{ending} ({who})"] += 1
            else:
                control["normal or adjudicated"] += 1

    if not counts:
        sys.exit("no games found")
    columns = ["games", "normal or adjudicated"] + [
        f"{ending} ({who})" for ending in ABNORMAL for who in (args.engine, "opponent")
    ]
    print("| time control | " + " | ".join(columns) + " |")
    print("|---" * (len(columns) + 1) + "|")
    for control, count in sorted(counts.items()):
        print(f"| {control} | " + " | ".join(str(count[c]) for c in columns) + " |")


if __name__ == "__main__":
    main()
