"""match.sh chunks with a stand-in fastchess: resuming, refusing other binaries, cut-short chunks, SPRTs."""

import json
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

    def run_chunks(self, new="new", games=6, chunk=2, **env):
        environment = dict(os.environ, FASTCHESS=str(self.dir / "fastchess"), BOOK=str(self.dir / "book.pgn"),
                           DATA=str(self.dir / "data"), GAMES=str(games), CHUNK=str(chunk))
        environment.update(env)
        return subprocess.run([str(SCRIPTS / "match.sh"), "chunks", str(self.ledger), str(self.dir / new), str(self.dir / "base")],
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
        self.assertEqual(done.returncode, 4)
        self.assertIn("ended after 1 of 2 games", done.stderr)
        self.assertEqual(self.rows(), [])
        self.assertEqual(self.run_chunks(games=4).returncode, 0, "played again on the next run")
        self.assertEqual(len(self.rows()), 2)

    def test_an_sprt_ends_at_its_decision(self):
        # Every pair won 2-0 adds 0.02 to the LLR of [0, 5]: 150 pairs pass 2.94 in the third chunk.
        done = self.run_chunks(games=1000, chunk=100, SPRT="0 5", WINNER="new")
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("H1 accepted", done.stdout)
        self.assertEqual(len(self.rows()), 3)
        again = self.run_chunks(games=1000, chunk=100, SPRT="0 5", WINNER="new")
        self.assertEqual((again.returncode, len(self.rows())), (0, 3), "a decided test plays no more")
        other_bounds = self.run_chunks(games=1000, chunk=100, SPRT="0 10", WINNER="new")
        self.assertEqual(other_bounds.returncode, 2, "the bounds are part of the ledger's identity")

    def test_an_sprt_can_reject(self):
        done = self.run_chunks(games=1000, chunk=100, SPRT="0 5", WINNER="base")
        self.assertEqual(done.returncode, 1, done.stderr)
        self.assertIn("H0 accepted", done.stdout)

    def test_an_sprt_stops_undecided_at_games(self):
        capped = self.run_chunks(games=4, SPRT="0 5", WINNER="new")
        self.assertEqual(capped.returncode, 3, "GAMES reached without a decision")
        self.assertIn("no decision", capped.stdout)
        self.assertEqual(len(self.rows()), 2)

    def test_bad_bounds_are_refused_before_any_game(self):
        for bounds in ("5", "0,5", "5 0", "a b", "0 5 10"):
            done = self.run_chunks(SPRT=bounds)
            self.assertEqual(done.returncode, 2, bounds)
            self.assertIn("two bounds", done.stderr)
        self.assertFalse(self.ledger.exists())

    def test_a_ledger_that_cannot_be_pooled_is_refused(self):
        self.assertEqual(self.run_chunks(games=2, SPRT="0 5").returncode, 3)
        with self.ledger.open("a") as ledger:
            ledger.write("<<<<<<< a merge conflict\n")
        done = self.run_chunks(games=4, SPRT="0 5")
        self.assertEqual(done.returncode, 2, "not taken for H0")
        self.assertIn("cannot pool", done.stderr)

    def test_a_missing_fastchess_is_refused_before_any_game(self):
        done = self.run_chunks(games=4, SPRT="0 5", FASTCHESS=str(self.dir / "missing"))
        self.assertEqual(done.returncode, 2, "not taken for H0")
        self.assertIn("fastchess not found", done.stderr)
        self.assertFalse(self.ledger.exists())

    def test_a_fastchess_that_fails_is_its_own_error(self):
        # As fastchess does when an engine, the book or an option does not load: no PGN, exit 1.
        write_program(self.dir / "failing", "#!/bin/sh\necho 'Fatal; new engine startup failure'\nexit 1\n")
        done = self.run_chunks(games=4, SPRT="0 5", FASTCHESS=str(self.dir / "failing"))
        self.assertEqual(done.returncode, 5, "not taken for H0")
        self.assertIn("fastchess failed", done.stderr)
        self.assertEqual(self.rows(), [])

    def test_a_chunk_without_games_is_its_own_error(self):
        done = self.run_chunks(games=4, SPRT="0 5", GAMES_BEFORE_CRASH="0")
        self.assertEqual(done.returncode, 5)
        self.assertIn("no games", done.stderr)
        self.assertEqual(self.rows(), [])

    def test_a_binary_that_changes_during_the_match_stops_it(self):
        # A fastchess that rebuilds `new` while it plays: the chunk is not recorded.
        write_program(self.dir / "rebuilding", f"#!/bin/sh\n{self.dir / 'fastchess'} \"$@\"\necho >> {self.dir / 'new'}\n")
        done = self.run_chunks(games=4, FASTCHESS=str(self.dir / "rebuilding"))
        self.assertEqual(done.returncode, 2)
        self.assertIn("no longer the binary", done.stderr)
        self.assertEqual(self.rows(), [])

    def test_each_chunk_has_its_own_seed(self):
        args = self.dir / "args"
        self.assertEqual(self.run_chunks(games=4, SRAND="7", FASTCHESS_ARGS=str(args)).returncode, 0)
        seeds = [call[call.index("-srand") + 1] for call in map(json.loads, args.read_text().splitlines())]
        self.assertEqual(seeds, ["8", "9"])
        self.assertIn("srand 7", self.ledger.read_text().splitlines()[0])
        self.assertEqual(self.run_chunks(games=6, SRAND="8").returncode, 2, "the seed is part of the identity")

    def test_a_node_count_replaces_the_clock(self):
        args = self.dir / "args"
        self.assertEqual(self.run_chunks(games=2, TC="nodes=5000", FASTCHESS_ARGS=str(args)).returncode, 0)
        call = json.loads(args.read_text().splitlines()[0])
        each = call[call.index("-each") + 1:]
        self.assertEqual(each[0], "nodes=5000")
        self.assertFalse(any(word.startswith("tc=") for word in call))
        self.assertIn("tc nodes=5000", self.ledger.read_text().splitlines()[0])

    def test_levels_match_each_rating_against_stockfish_s(self):
        args = self.dir / "args"
        environment = dict(os.environ, FASTCHESS=str(self.dir / "fastchess"), BOOK=str(self.dir / "book.pgn"),
                           DATA=str(self.dir / "data"), LEDGERS=str(self.dir / "matches"), GAMES="2",
                           CHUNK="2", ELOS="1320 1500 2500 3000", NAME="lv", STOCKFISH=str(self.dir / "base"),
                           FASTCHESS_ARGS=str(args))
        done = subprocess.run([str(SCRIPTS / "match.sh"), "levels", str(self.dir / "new")],
                              env=environment, capture_output=True, text=True)
        self.assertEqual(done.returncode, 0, done.stderr)
        calls = [json.loads(line) for line in args.read_text().splitlines()]
        self.assertEqual(len(calls), 4)
        # Stockfish 15.1's UCI_Elo for each rating, by hand: the 2023 fit's skill s, then
        # 1346.6 + 143.4 s^0.806 (1320 is skill 0, 15.1's lowest level, 1350).
        for call, elo, stockfish in zip(calls, (1320, 1500, 2500, 3000), (1350, 1544, 2023, 2533)):
            limit = "option.UCI_LimitStrength=true"
            self.assertEqual(call[call.index("name=new") + 1:][:3], [limit, f"option.UCI_Elo={elo}", "-engine"])
            self.assertEqual(call[call.index("name=base") + 1:][:3], [limit, f"option.UCI_Elo={stockfish}", "-each"])
            self.assertIn(f"cmd={self.dir / 'base'}", call)
            self.assertEqual(call[call.index("-each") + 1], "tc=10+0.1")
            self.assertNotIn("-resign", call)
            ledger = self.dir / "matches" / f"lv-{elo}.tsv"
            self.assertIn(f"option.UCI_Elo={stockfish}]", ledger.read_text().splitlines()[0])
        self.assertEqual(done.stdout.count("\nElo: "), 4, done.stdout)
        for outside in ("1319", "3001"):
            environment["ELOS"] = outside
            done = subprocess.run([str(SCRIPTS / "match.sh"), "levels", str(self.dir / "new")],
                                  env=environment, capture_output=True, text=True)
            self.assertEqual(done.returncode, 2)
            self.assertIn("1320 to 3000", done.stderr)

    def test_a_sequential_order_plays_each_opening_once(self):
        args = self.dir / "args"
        book = self.dir / "starts.epd"
        book.write_text("8/8/8/8/8/8/k7/K7 w - -\n" * 7)
        order = dict(ORDER="sequential", BOOK=str(book), FASTCHESS_ARGS=str(args))
        self.assertEqual(self.run_chunks(games=4, **order).returncode, 0)
        done = self.run_chunks(games=20, chunk=2, **order)
        self.assertEqual(done.returncode, 3, "seven openings make seven pairs, then the book is used up")
        self.assertIn("used up", done.stdout)
        self.assertEqual(len(self.rows()), 7)
        calls = [json.loads(line) for line in args.read_text().splitlines()]
        openings = [call[call.index("-openings") + 1:call.index("-openings") + 5] for call in calls]
        self.assertEqual([words[2:] for words in openings], [["order=sequential", f"start={n}"] for n in range(1, 8)])
        self.assertIn("order sequential", self.ledger.read_text().splitlines()[0])
        self.assertEqual(self.run_chunks(games=20, chunk=2).returncode, 2, "the order is part of the identity")

    def test_an_unknown_order_is_refused(self):
        done = self.run_chunks(ORDER="shuffled")
        self.assertEqual(done.returncode, 2)
        self.assertIn("random or sequential", done.stderr)
        self.assertFalse(self.ledger.exists())

    def test_a_folder_serves_one_ledger(self):
        self.assertEqual(self.run_chunks(games=2).returncode, 0)
        self.assertEqual((self.dir / "data" / "ledger").read_text().strip(), str(self.ledger.resolve()))
        self.ledger = self.dir / "elsewhere" / "m.tsv"
        done = self.run_chunks(games=2)
        self.assertEqual(done.returncode, 2)
        self.assertIn("holds the chunks of", done.stderr)
        self.assertFalse(self.ledger.exists())

    def test_stop_ends_the_match_between_chunks(self):
        (self.dir / "data").mkdir()
        (self.dir / "data" / "stop").touch()
        done = self.run_chunks(games=4)
        self.assertEqual(done.returncode, 3, "not finished")
        self.assertIn("stopped", done.stdout)
        self.assertFalse(self.ledger.exists())


if __name__ == "__main__":
    unittest.main()
