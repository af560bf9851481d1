"""chunks.sh with a stand-in fastchess: resuming, refusing other binaries, cut-short chunks."""

import os
import stat
import subprocess
import tempfile
import unittest
from pathlib import Path

SCRIPTS = Path(__file__).resolve().parent.parent

# Plays `-rounds` pairs of instant games into `-pgnout file=…` (white wins every game), or only
# $GAMES_BEFORE_CRASH of them, as fastchess would print them.
FASTCHESS = r'''#!/usr/bin/env python3
import os, sys
args = sys.argv[1:]
rounds = int(args[args.index("-rounds") + 1])
path = args[args.index("-pgnout") + 1].removeprefix("file=")
games = min(2 * rounds, int(os.environ.get("GAMES_BEFORE_CRASH", 2 * rounds)))
with open(path, "a") as pgn:
    for game in range(games):
        white, black = ("new", "base") if game % 2 == 0 else ("base", "new")
        pgn.write(f'[Event "t"]\n[Round "{game // 2 + 1}"]\n[White "{white}"]\n[Black "{black}"]\n'
                  f'[Result "1-0"]\n[TimeControl "8+0.08"]\n\n1. e4 {{+0.1/5 0.100s}} 1-0\n\n')
print(f"Games: {games}, Wins: 0, Losses: 0, Draws: 0")
'''


def engine(bench_nodes):
    return f"#!/bin/sh\necho '{bench_nodes} nodes 1000 nps'\n"


class Chunks(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = Path(self.tmp.name)
        for name, text in (("fastchess", FASTCHESS), ("new", engine(1)), ("base", engine(2)), ("other", engine(3))):
            (self.dir / name).write_text(text)
            (self.dir / name).chmod(stat.S_IRWXU)
        (self.dir / "book.pgn").write_text("")
        self.ledger = self.dir / "matches" / "m.tsv"

    def tearDown(self):
        self.tmp.cleanup()

    def run_chunks(self, new="new", games=6, **env):
        environment = dict(os.environ, FASTCHESS=str(self.dir / "fastchess"), BOOK=str(self.dir / "book.pgn"),
                           DATA=str(self.dir / "data"), GAMES=str(games), CHUNK="2", **env)
        return subprocess.run([str(SCRIPTS / "chunks.sh"), str(self.ledger), str(self.dir / new), str(self.dir / "base")],
                              env=environment, capture_output=True, text=True)

    def rows(self):
        return [line for line in self.ledger.read_text().splitlines() if line[:1].isdigit()]

    def test_a_match_resumes_after_its_recorded_chunks(self):
        self.assertEqual(self.run_chunks(games=4).returncode, 0)
        self.assertEqual(len(self.rows()), 2)
        self.assertEqual(self.run_chunks(games=6).returncode, 0)
        self.assertEqual(len(self.rows()), 3, "one more chunk, none replayed")
        games = sum(int(row.split("\t")[2]) for row in self.rows())
        wins = sum(int(row.split("\t")[3]) for row in self.rows())
        self.assertEqual((games, wins), (6, 3), "new won its games as White")

    def test_another_binary_is_refused(self):
        self.run_chunks(games=2)
        done = self.run_chunks(new="other", games=4)
        self.assertEqual(done.returncode, 2)
        self.assertIn("was played as", done.stderr)
        self.assertEqual(len(self.rows()), 1)

    def test_a_chunk_cut_short_is_not_recorded(self):
        done = self.run_chunks(games=4, GAMES_BEFORE_CRASH="1")
        self.assertNotEqual(done.returncode, 0)
        self.assertIn("ended after 1 of 2 games", done.stderr)
        self.assertEqual(self.rows(), [])
        self.assertEqual(self.run_chunks(games=4).returncode, 0, "played again on the next run")
        self.assertEqual(len(self.rows()), 2)

    def test_stop_ends_the_match_between_chunks(self):
        (self.dir / "data").mkdir()
        (self.dir / "data" / "stop").touch()
        done = self.run_chunks(games=4)
        self.assertEqual(done.returncode, 3, "not finished")
        self.assertIn("stopped", done.stdout)
        self.assertFalse(self.ledger.exists())


if __name__ == "__main__":
    unittest.main()
