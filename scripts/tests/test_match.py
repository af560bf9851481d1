"""match.sh sprt with a stand-in fastchess: what it asks fastchess for, and its exit codes (the
chunks mode: test_chunks.py)."""

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


class Sprt(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = Path(self.tmp.name)
        write_program(self.dir / "fastchess", FASTCHESS)
        write_program(self.dir / "engine", "#!/bin/sh\n")
        (self.dir / "book.epd").write_text("")
        self.args = self.dir / "args"

    def tearDown(self):
        self.tmp.cleanup()

    def run_sprt(self, *bounds, fastchess="fastchess", **env):
        environment = dict(os.environ, FASTCHESS=str(self.dir / fastchess), BOOK=str(self.dir / "book.epd"),
                           OUT=str(self.dir / "out"), MAX_ROUNDS="2", FASTCHESS_ARGS=str(self.args), **env)
        engine = str(self.dir / "engine")
        return subprocess.run([str(SCRIPTS / "match.sh"), "sprt", engine, engine, *bounds],
                              env=environment, capture_output=True, text=True)

    def fastchess_args(self):
        return json.loads(self.args.read_text().splitlines()[-1])

    def test_the_verdict_is_fastchess_s(self):
        for accepted, code, line in (("H1", 0, "SPRT: H1 accepted"), ("H0", 1, "SPRT: H0 accepted"),
                                     (None, 3, "SPRT: no decision")):
            with self.subTest(accepted=accepted):
                done = self.run_sprt(**({"ACCEPTED": accepted} if accepted else {}))
                self.assertEqual(done.returncode, code, done.stderr)
                self.assertEqual(done.stdout.splitlines()[-1], line)
        self.assertTrue((self.dir / "out" / "games.pgn").exists())

    def test_the_bounds_go_to_fastchess_unless_fixed(self):
        self.run_sprt("-5", "0")
        args = self.fastchess_args()
        sprt = args.index("-sprt")
        self.assertEqual(args[sprt + 1:sprt + 5], ["elo0=-5", "elo1=0", "alpha=0.05", "beta=0.05"])
        self.assertIn("format=epd", args)
        self.assertEqual(self.run_sprt("-5", "0", FIXED="1", NEW_OPTIONS="option.x=1").returncode, 3)
        args = self.fastchess_args()
        self.assertNotIn("-sprt", args)
        self.assertEqual(args[args.index("-rounds") + 1], "2")
        self.assertEqual(args[args.index("name=new") + 1], "option.x=1")

    def test_a_failing_fastchess_is_no_verdict(self):
        # As fastchess does when it is stopped: what it printed before is no result.
        write_program(self.dir / "failing", f"#!/bin/sh\n{self.dir / 'fastchess'} \"$@\"\nexit 1\n")
        done = self.run_sprt(fastchess="failing", ACCEPTED="H1")
        self.assertEqual(done.returncode, 5)
        self.assertIn("fastchess failed", done.stderr)

    def test_other_arguments_print_the_usage(self):
        for args in (["sprt", "one-binary"], ["chunks", "ledger", "new"], ["match"]):
            done = subprocess.run([str(SCRIPTS / "match.sh"), *args], capture_output=True, text=True)
            self.assertEqual(done.returncode, 2, args)
            self.assertIn("scripts/match.sh sprt NEW BASE [ELO0 ELO1]", done.stderr)


if __name__ == "__main__":
    unittest.main()
