"""endgame_starts.py on a few hand-made games: which positions become starts. Needs python-chess
(`pip install chess`); skips without it."""

import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

try:
    import chess
except ImportError:  # the test says so when it skips
    chess = None

SCRIPT = Path(__file__).resolve().parent.parent / "endgame_starts.py"


def game(fen, movetext):
    return f'[Event "t"]\n[SetUp "1"]\n[FEN "{fen}"]\n[Result "*"]\n\n{movetext} *\n\n'


def pawns(king="4K3"):
    """Kings and a pawn each, White to capture; `king` is White's first rank."""
    return f"4k3/8/8/3p4/4P3/8/8/{king} w - - 0 1"


@unittest.skipIf(chess is None, "python-chess is not installed")
class EndgameStarts(unittest.TestCase):
    def starts(self, games, *flags):
        with tempfile.TemporaryDirectory() as tmp:
            pgn = Path(tmp) / "games.pgn"
            pgn.write_text("".join(games))
            done = subprocess.run([sys.executable, str(SCRIPT), "--pieces", "3", *flags, str(pgn)],
                                  capture_output=True, text=True, check=True)
        return done.stdout.splitlines(), done.stderr

    def test_the_first_balanced_position_of_few_pieces_is_kept_once(self):
        balanced = game(pawns(), "1. exd5 {+0.50/10 0.1s} Kd7 {-0.40/10 0.1s}")
        starts, summary = self.starts([
            balanced,
            balanced,  # the same start again
            game(pawns("K7"), "1. exd5 {+0.50/10 0.1s} Kd7 {-2.50/10 0.1s}"),  # decided
            game(pawns("1K6"), "1. exd5 {+0.50/10 0.1s} Kd7 {-M5/10 0.1s}"),  # a mate score
            game(pawns("2K5"), "1. exd5 Kd7"),  # book moves, no score
            game(pawns("7K"), "1. exd5 {+0.50/10 0.1s} Ke7 {+1.20/10 0.1s}"),
        ])
        self.assertEqual(sorted(starts), ["4k3/8/8/3P4/8/8/8/4K3 b - -", "4k3/8/8/3P4/8/8/8/7K b - -"])
        self.assertIn("6 games, 2 starts", summary)

    def test_the_score_limit_and_the_piece_count_are_settings(self):
        decided = game(pawns(), "1. exd5 {+0.50/10 0.1s} Kd7 {-2.50/10 0.1s}")
        self.assertEqual(len(self.starts([decided], "--within", "300")[0]), 1)
        self.assertEqual(self.starts([decided], "--pieces", "2")[0], [], "never 2 pieces")

    def test_the_order_is_the_seeds(self):
        games = [game(pawns(king), "1. exd5 {+0.5/9 0.1s} Kd7 {+0.1/9 0.1s}")
                 for king in ("K7", "1K6", "2K5", "3K4", "5K2", "6K1", "7K")]
        first, again, other = (self.starts(games, "--seed", seed)[0] for seed in ("1", "1", "2"))
        self.assertEqual(len(first), 7)
        self.assertEqual(first, again)
        self.assertEqual(sorted(first), sorted(other))
        self.assertNotEqual(first, other)


if __name__ == "__main__":
    unittest.main()
