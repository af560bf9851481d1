"""The engine's Syzygy probes (its `probe` command) against python-chess's own reader, on random
positions of the test tables in engine/tests/syzygy. Needs python-chess (`pip install -r
scripts/requirements.txt`) and an engine build: $PATINA, else the release build, else the one
`cargo test --profile test-release` makes (so `make test` always has one); skips without either."""

import os
import random
import subprocess
import unittest
from pathlib import Path

try:
    import chess
    import chess.syzygy
except ImportError:  # the test says so when it skips
    chess = None

ROOT = Path(__file__).resolve().parent.parent.parent
TABLES = ROOT / "engine" / "tests" / "syzygy"
BUILDS = [Path(os.environ["PATINA"])] if "PATINA" in os.environ else [
    ROOT / "target" / "release" / "patina",
    ROOT / "target" / "test-release" / "patina",
]
ENGINE = next((path for path in BUILDS if path.is_file()), None)
# White's pieces besides the king, Black's besides the king: each set of the test tables.
MATERIALS = ["Q", "R", "B", "N", "P", "BN", "Q/r"]
SAMPLES_PER_MATERIAL = 40


def random_position(rng, material):
    """A legal position of `material` (kings added; `/` separates Black's pieces), no castling."""
    white, _, black = material.partition("/")
    while True:
        board = chess.Board(None)
        pieces = ["K", "k"] + list(white) + list(black)
        squares = rng.sample(chess.SQUARES, len(pieces))
        for symbol, square in zip(pieces, squares):
            board.set_piece_at(square, chess.Piece.from_symbol(symbol))
        board.turn = rng.choice([chess.WHITE, chess.BLACK])
        if board.is_valid():
            return board


class SyzygyProbes(unittest.TestCase):
    def setUp(self):
        if chess is None:
            self.skipTest("python-chess is not installed (pip install -r scripts/requirements.txt)")
        if ENGINE is None:
            self.skipTest(f"no engine at {' or '.join(map(str, BUILDS))} (cargo build --release, or set PATINA)")

    def test_probes_agree_with_python_chess(self):
        rng = random.Random(27)
        boards = [random_position(rng, m) for m in MATERIALS for _ in range(SAMPLES_PER_MATERIAL)]
        commands = [f"setoption name SyzygyPath value {TABLES}"]
        for board in boards:
            commands += [f"position fen {board.fen()}", "probe"]
        commands.append("quit")
        output = subprocess.run(
            [str(ENGINE)],
            input="\n".join(commands) + "\n",
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
        ).stdout
        answers = [
            line.split()[3:]
            for line in output.splitlines()
            if line.startswith("info string tablebase")
        ]
        self.assertEqual(len(answers), len(boards), output[-2000:])
        with chess.syzygy.open_tablebase(str(TABLES)) as tables:
            for board, answer in zip(boards, answers):
                expected = ["wdl", str(tables.probe_wdl(board)), "dtz", str(tables.probe_dtz(board))]
                self.assertEqual(answer, expected, board.fen())


if __name__ == "__main__":
    unittest.main()
