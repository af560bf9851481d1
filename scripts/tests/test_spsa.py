"""spsa.py with a stand-in fastchess and engine: the match it asks scripts/match.sh for, and the step."""

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

# Answers `uci` with settings (not tuned) and one search parameter.
ENGINE = """#!/bin/sh
cat > /dev/null
echo 'option name Hash type spin default 16 min 1 max 1024'
echo 'option name SyzygyProbeDepth type spin default 1 min 1 max 100'
echo 'option name rfp_margin type spin default 100 min 0 max 200'
echo 'uciok'
"""


def option(args, engine_name, name):
    """The value fastchess was given for engine `engine_name`'s option `name`."""
    start = args.index(f"name={engine_name}")
    words = args[start:args.index("-engine", start) if "-engine" in args[start:] else len(args)]
    return int(next(w for w in words if w.startswith(f"option.{name}=")).split("=")[1])


class Spsa(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = Path(self.tmp.name)
        write_program(self.dir / "fastchess", FASTCHESS)
        write_program(self.dir / "engine", ENGINE)
        (self.dir / "book.pgn").write_text("")
        self.state = self.dir / "state.json"

    def tearDown(self):
        self.tmp.cleanup()

    def run_spsa(self, **env):
        environment = dict(os.environ, FASTCHESS=str(self.dir / "fastchess"),
                           FASTCHESS_ARGS=str(self.dir / "args"), **env)
        return subprocess.run([sys.executable, str(SCRIPTS / "spsa.py"), str(self.dir / "engine"),
                               "--state", str(self.state), "--iterations", "1", "--pairs", "3",
                               "--book", str(self.dir / "book.pgn")],
                              env=environment, capture_output=True, text=True)

    def test_the_match_is_fixed_length_between_the_two_perturbations(self):
        done = self.run_spsa()
        self.assertEqual(done.returncode, 0, done.stderr)
        args = json.loads((self.dir / "args").read_text())
        self.assertEqual(args[args.index("-rounds") + 1], "3")
        self.assertIn("-srand", args)
        self.assertNotIn("-sprt", args)
        self.assertIn("option.Threads=1", args)
        self.assertNotEqual(option(args, "new", "rfp_margin"), option(args, "base", "rfp_margin"))
        state = json.loads(self.state.read_text())
        self.assertEqual(state["iteration"], 1)
        self.assertEqual(list(state["params"]), ["rfp_margin"], "Hash and SyzygyProbeDepth are settings")
        # White won every game, so θ+ won 3 and lost 3: no step.
        self.assertEqual(state["params"]["rfp_margin"]["value"], 100)

    def test_theta_steps_toward_the_side_that_won(self):
        for winner in ("new", "base"):
            with self.subTest(winner=winner):
                self.state.unlink(missing_ok=True)
                (self.dir / "args").unlink(missing_ok=True)
                self.assertEqual(self.run_spsa(WINNER=winner).returncode, 0)
                args = json.loads((self.dir / "args").read_text())
                won = option(args, winner, "rfp_margin")
                step = json.loads(self.state.read_text())["params"]["rfp_margin"]["value"] - 100
                self.assertGreater(step * (won - 100), 0, f"θ moved {step} though {won} won")

    def test_a_match_without_games_stops_the_run(self):
        done = self.run_spsa(GAMES_BEFORE_CRASH="0")
        self.assertNotEqual(done.returncode, 0)
        self.assertIn("no game finished", done.stderr)
        self.assertEqual(json.loads(self.state.read_text())["iteration"], 0)


if __name__ == "__main__":
    unittest.main()
