"""chunks.sh with a stand-in fastchess: resuming, refusing other binaries, cut-short chunks."""

import os
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from standins import FASTCHESS, write_program  # noqa: E402

SCRIPTS = Path(__file__).resolve().parent.parent


def engine(bench_nodes):
    return f"#!/bin/sh\necho '{bench_nodes} nodes 1000 nps'\n"


class Chunks(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = Path(self.tmp.name)
        for name, text in (("fastchess", FASTCHESS), ("new", engine(1)), ("base", engine(2)), ("other", engine(3))):
            write_program(self.dir / name, text)
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
