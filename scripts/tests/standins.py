"""Stand-ins for the programs the match scripts drive, so their tests need no engine or fastchess."""

import stat
from pathlib import Path

# Plays `-rounds` pairs of instant games into `-pgnout file=…` (White wins every game, or the
# engine named $WINNER does), or only $GAMES_BEFORE_CRASH of them, as fastchess would print them;
# ends with fastchess's verdict line when $ACCEPTED names a hypothesis (H0, H1); appends its
# arguments, one line each call, to $FASTCHESS_ARGS if set.
FASTCHESS = r'''#!/usr/bin/env python3
import json, os, sys
args = sys.argv[1:]
if "FASTCHESS_ARGS" in os.environ:
    with open(os.environ["FASTCHESS_ARGS"], "a") as log:
        log.write(json.dumps(args) + "\n")
rounds = int(args[args.index("-rounds") + 1])
path = args[args.index("-pgnout") + 1].removeprefix("file=")
games = min(2 * rounds, int(os.environ.get("GAMES_BEFORE_CRASH", 2 * rounds)))
with open(path, "a") as pgn:
    for game in range(games):
        white, black = ("new", "base") if game % 2 == 0 else ("base", "new")
        result = "0-1" if os.environ.get("WINNER", white) != white else "1-0"
        pgn.write(f'[Event "t"]\n[Round "{game // 2 + 1}"]\n[White "{white}"]\n[Black "{black}"]\n'
                  f'[Result "{result}"]\n[TimeControl "8+0.08"]\n\n1. e4 {{+0.1/5 0.100s}} {result}\n\n')
print(f"Games: {games}, Wins: 0, Losses: 0, Draws: 0")
if "ACCEPTED" in os.environ:
    print(f"SPRT ([0.00, 5.00]) completed - {os.environ['ACCEPTED']} was accepted")
'''


def write_program(path: Path, text: str) -> Path:
    path.write_text(text)
    path.chmod(stat.S_IRWXU)
    return path
