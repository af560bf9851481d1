"""games.py against fastchess: its game pairs, ledgers and clock (the statistics: test_stats.py)."""

import contextlib
import io
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import games  # noqa: E402


SCRIPT = Path(__file__).resolve().parent.parent / "games.py"


def pgn(*games_):
    """A PGN of (round, white, result, movetext[, termination]) games between `new` and `base`."""
    text = []
    for round_, white, result, moves, *termination in games_:
        black = "base" if white == "new" else "new"
        ending = f'[Termination "{termination[0]}"]\n' if termination else ""
        text.append(
            f'[Event "t"]\n[Round "{round_}"]\n[White "{white}"]\n[Black "{black}"]\n'
            f'[Result "{result}"]\n{ending}[TimeControl "1+0.01"]\n\n{moves} {result}\n\n'
        )
    return "".join(text)


def games_py(*args):
    """Runs games.py as the scripts do; returns (exit code, standard output)."""
    done = subprocess.run([sys.executable, str(SCRIPT), *map(str, args)], capture_output=True, text=True)
    return done.returncode, done.stdout


class Pairs(unittest.TestCase):
    def test_pairs_are_the_two_games_of_a_round_and_unfinished_pairs_are_left_out(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "games.pgn"
            path.write_text(pgn(
                (1, "new", "1-0", "1. e4"),
                (2, "new", "1/2-1/2", "1. e4"),
                (1, "base", "1-0", "1. e4"),  # the pair of round 1 completes out of order
                (2, "base", "0-1", "1. e4"),
                (3, "new", "0-1", "1. e4"),  # its partner never finished
            ))
            # Round 1: a win and a loss (1 point); round 2: a draw and a win (1.5 points).
            self.assertEqual(games.pentanomial([path], "new"), [0, 0, 1, 1, 0])


class Results(unittest.TestCase):
    def test_elo_and_its_interval_per_opponent(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "games.pgn"
            path.write_text(pgn((1, "new", "1-0", "1. e4"), (1, "base", "1-0", "1. e4"),
                                (2, "new", "1/2-1/2", "1. e4"), (2, "base", "0-1", "1. e4")))
            code, table = games_py("results", path)
        self.assertEqual(code, 0)
        # A score of 62.5 %; the interval's top end, past a perfect score, is kept finite.
        self.assertIn("| base | 4 | 2 / 1 / 1 | 62.5% | +89 [-221, +3600] |", table)


class Ledger(unittest.TestCase):
    CHUNKS = [
        pgn(
            (1, "new", "1-0", "1. e4 {+0.1/5 0.300s}"),
            (1, "base", "1/2-1/2", "1. e4 {+0.1/5 0.200s}"),
            (2, "new", "0-1", "1. e4 {+0.1/5 0.990s} e5 {-0.1/5 0.100s, White loses on time}", "time forfeit"),
            (2, "base", "0-1", "1. d4 {+0.1/5 0.100s}"),
        ),
        pgn(
            (1, "new", "1/2-1/2", "1. c4 {+0.1/5 0.400s}"),
            (1, "base", "0-1", "1. c4 {+0.1/5 0.050s} c5 {-0.1/5 0.700s}", "illegal move"),
        ),
    ]

    def test_pooled_rows_agree_with_the_games_themselves(self):
        with tempfile.TemporaryDirectory() as tmp:
            paths = []
            for number, text in enumerate(self.CHUNKS):
                paths.append(Path(tmp) / f"chunk-{number}.pgn")
                paths[-1].write_text(text)
                self.assertEqual(games_py("tally", "--engine", "new", "--ledger", Path(tmp) / "ledger.tsv", paths[-1])[0], 0)
            rows = (Path(tmp) / "ledger.tsv").read_text().splitlines()
            self.assertEqual(len(rows), 3, "a header and a row per chunk")
            code, pooled = games_py("ledger", "--sprt", -5, 0, Path(tmp) / "ledger.tsv")
            _, direct = games_py("sprt", "--engine", "new", -5, 0, *paths)
        # The same Elo, pentanomial and LLR as the SPRT over the chunks' PGNs, and its exit code.
        self.assertEqual(code, 3)
        self.assertIn(direct, pooled)
        # Pairs of new's points: 1 + ½, 0 + 1, then ½ + 1.
        self.assertIn("Ptnml(0-2): [0, 0, 1, 2, 0]", pooled)
        self.assertIn("W/D/L: 3/2/1", pooled)
        self.assertIn("time_forfeit_engine 1, time_forfeit_opponent 0", pooled)
        self.assertIn("illegal_move_engine 0, illegal_move_opponent 1", pooled)
        # Lowest clocks: new 1010 − 990 = 20 (its forfeit); base 1010 − 200 = 810.
        self.assertIn("lowest clock (ms): engine 20, opponent 810", pooled)

    def test_comments_and_blank_lines_are_not_rows(self):
        with tempfile.TemporaryDirectory() as tmp:
            ledger, chunk = Path(tmp) / "ledger.tsv", Path(tmp) / "chunk.pgn"
            ledger.write_text("# new 1, base 2\n\n")
            chunk.write_text(self.CHUNKS[0])
            games_py("tally", "--engine", "new", "--ledger", ledger, chunk)
            self.assertEqual(ledger.read_text().splitlines()[2].split("\t"), games.LEDGER_COLUMNS)
            code, pooled = games_py("ledger", ledger)
        self.assertEqual(code, 0, "a report without SPRT bounds is a success")
        self.assertIn("1 chunks", pooled)

    def test_a_row_without_results_or_endings_still_counts_its_pairs(self):
        with tempfile.TemporaryDirectory() as tmp:
            ledger, chunk = Path(tmp) / "ledger.tsv", Path(tmp) / "chunk.pgn"
            chunk.write_text(self.CHUNKS[0])
            games_py("tally", "--engine", "new", "--ledger", ledger, chunk)
            carried = {column: "-" for column in games.LEDGER_OPTIONAL}
            carried |= {"tallied": "-", "time_control": "1+0.01", "games": "20",
                        "lowest_clock_engine": "-", "lowest_clock_opponent": "-"}
            carried |= {f"pairs_{p}": str(n) for p, n in zip(("0", "0.5", "1", "1.5", "2"), (1, 2, 3, 3, 1))}
            with ledger.open("a") as file:
                file.write("\t".join(carried[column] for column in games.LEDGER_COLUMNS) + "\n")
            code, pooled = games_py("ledger", ledger)
        self.assertEqual(code, 0)
        # The chunk's pairs [0, 0, 1, 1, 0] plus the carried row's.
        self.assertIn("Ptnml(0-2): [1, 2, 4, 4, 1]", pooled)
        self.assertIn("W/D/L: 2/1/1 (not recorded for 20 games)", pooled)
        self.assertIn("time_forfeit_engine 1, time_forfeit_opponent 0", pooled)
        self.assertIn("(not recorded for 20 games)\nlowest clock", pooled)

    def test_an_empty_ledger_is_an_error(self):
        with tempfile.TemporaryDirectory() as tmp:
            (Path(tmp) / "ledger.tsv").write_text("\t".join(games.LEDGER_COLUMNS) + "\n")
            code, _ = games_py("ledger", Path(tmp) / "ledger.tsv")
        self.assertEqual(code, 2, "neither success nor an SPRT verdict")

    def test_an_engine_name_that_matches_neither_side_is_refused(self):
        with tempfile.TemporaryDirectory() as tmp:
            chunk = Path(tmp) / "chunk.pgn"
            chunk.write_text(self.CHUNKS[0])
            code, _ = games_py("tally", "--engine", "patina", "--ledger", Path(tmp) / "ledger.tsv", chunk)
            self.assertEqual(code, 2)
            self.assertFalse((Path(tmp) / "ledger.tsv").exists(), "nothing is written")
            # The reports refuse it too, rather than file every game under the opponent.
            for command in ("endings", "clock"):
                self.assertEqual(games_py(command, "--engine", "patina", chunk)[0], 2, command)
                self.assertEqual(games_py(command, chunk)[0], 0, f"{command}: `new` by default")

    def test_copies_played_apart_merge_into_one_ledger(self):
        with tempfile.TemporaryDirectory() as tmp:
            here, there = Path(tmp) / "ledger.tsv", Path(tmp) / "copy.tsv"
            paths = [Path(tmp) / f"chunk-{number}.pgn" for number in range(3)]
            for path, text in zip(paths, self.CHUNKS[:1] + self.CHUNKS[:1] + self.CHUNKS[1:]):
                path.write_text(text)
            here.write_text("# new 1, base 2\n")
            games_py("tally", "--engine", "new", "--ledger", here, paths[0])
            there.write_text(here.read_text())
            # Each copy goes on with a chunk of its own: here's may repeat a shared row word for word.
            games_py("tally", "--engine", "new", "--ledger", here, paths[1])
            games_py("tally", "--engine", "new", "--ledger", there, paths[2])
            code, said = games_py("merge", here, there)
            self.assertEqual(code, 0)
            self.assertIn("1 rows, 2 games added", said)
            _, pooled = games_py("ledger", "--sprt", -5, 0, here)
            _, direct = games_py("sprt", "--engine", "new", -5, 0, *paths)
            self.assertIn(direct, pooled)
            self.assertIn("3 chunks", pooled)
            before = here.read_text()
            self.assertIn("0 rows, 0 games added", games_py("merge", here, there)[1])
            self.assertEqual(here.read_text(), before, "a second merge adds nothing")
            # A ledger of other binaries or settings is another match, and so is one that does
            # not say: nothing is written, from the good copy beside them either.
            other = Path(tmp) / "other.tsv"
            other.write_text(there.read_text().replace("# new 1, base 2", "# new 1, base 3"))
            unnamed = Path(tmp) / "unnamed.tsv"
            unnamed.write_text(there.read_text().split("\n", 1)[1])
            for bad in (other, unnamed):
                self.assertEqual(games_py("merge", here, there, bad)[0], 2)
                self.assertEqual(here.read_text(), before, "nothing is written")
            # A new ledger takes a copy whole; one whose last row lost its newline still pools.
            fresh = Path(tmp) / "fresh.tsv"
            self.assertEqual(games_py("merge", fresh, here)[0], 0)
            self.assertEqual(fresh.read_text(), here.read_text())
            cut = Path(tmp) / "cut.tsv"
            cut.write_text(there.read_text().rstrip("\n"))
            games_py("merge", cut, here)
            self.assertIn("3 chunks", games_py("ledger", cut)[1])


class Clock(unittest.TestCase):
    def test_a_forfeit_shows_as_fastchess_reported_it(self):
        # 1+0.01: the increment is granted up front; Black's second move overruns by 12 ms.
        moves = "1. e4 {+0.1/5 0.500s} e5 {-0.1/5 0.600s} 2. Nf3 {+0.1/5 0.100s} " \
                "Nc6 {-0.1/5 0.432s, Black loses on time (12ms overrun)}"
        # White: 1010 − 500 = 510; + 10 − 100 = 420. Black: 1010 − 600 = 410; + 10 − 432 = −12.
        self.assertEqual(games.lowest_clocks(moves, (0, 1000, 10), 0), [420, -12])

    def test_book_moves_are_off_the_clock(self):
        moves = "1. e4 {book} e5 {book} 2. Nf3 {+0.1/5 0.300s} Nc6 {-0.1/5 0.200s}"
        self.assertEqual(games.lowest_clocks(moves, (0, 1000, 0), 0), [700, 800])

    def test_a_repeating_control_refills_on_the_move_that_ends_the_period(self):
        # 2 moves in 1 s: fastchess adds the next period before charging the second move.
        moves = "1. e4 {+0.1/5 0.600s} e5 {-0.1/5 0.100s} 2. Nf3 {+0.1/5 0.500s} " \
                "Nc6 {-0.1/5 0.100s} 3. Nc3 {+0.1/5 1.800s}"
        # White: 1000 − 600 = 400; + 1000 − 500 = 900; − 1800 = −900 (lost on time).
        # Black: 1000 − 100 = 900; + 1000 − 100 = 1800.
        self.assertEqual(games.lowest_clocks(moves, (2, 1000, 0), 0), [-900, 900])

    def test_black_to_move_first(self):
        moves = "1... e5 {-0.1/5 0.250s} 2. Nf3 {+0.1/5 0.100s}"
        self.assertEqual(games.lowest_clocks(moves, (0, 1000, 0), 1), [900, 750])


if __name__ == "__main__":
    unittest.main()
