#!/usr/bin/env python3
"""An opening book of endgame starts, taken from played games, for matches of a change that acts
only in endings (an endgame net, endgame scaling): from the 8moves book most games never reach
the positions it changes, and an SPRT from there needs many times the games.

    scripts/endgame_starts.py [--pieces 8] [--within 150] [--seed 1] GAMES.pgn [...] > STARTS.epd

From each game the first position with at most `--pieces` pieces (kings included) is taken, if
the engine to move there scored it within ±`--within` cp (fastchess's `{+0.42/17 …}` comments;
a book move, a mate score or a finished game leaves the game out). Each position is written
once, as EPD, shuffled by `--seed` so that a book played in file order (`ORDER=sequential`)
mixes its sources. Needs python-chess (`pip install -r scripts/requirements.txt`).
"""

import argparse
import random
import re
import sys

import chess.pgn

SCORE = re.compile(r"([+-]?\d+(?:\.\d+)?)/")


def first_start(game, pieces, within):
    """The EPD of the game's first position of at most `pieces` pieces, if it is balanced."""
    board = game.board()
    for node in game.mainline():
        board.push(node.move)
        if chess.popcount(board.occupied) > pieces:
            continue
        reply = node.next()
        score = SCORE.match(reply.comment) if reply is not None else None
        if score and abs(float(score.group(1))) * 100 <= within and not board.is_game_over():
            return board.epd()
        return None
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pieces", type=int, default=8, help="most pieces, kings included")
    parser.add_argument("--within", type=float, default=150, help="largest |score| in cp")
    parser.add_argument("--seed", type=int, default=1, help="seed of the output order")
    parser.add_argument("games", nargs="+", help="PGN files with fastchess's score comments")
    args = parser.parse_args()
    starts, games = {}, 0
    for path in args.games:
        with open(path) as pgn:
            while (game := chess.pgn.read_game(pgn)) is not None:
                games += 1
                start = first_start(game, args.pieces, args.within)
                if start is not None:
                    starts[start] = None
    order = list(starts)
    random.Random(args.seed).shuffle(order)
    for start in order:
        print(start)
    print(f"{games} games, {len(order)} starts", file=sys.stderr)


if __name__ == "__main__":
    main()
