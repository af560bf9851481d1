"""scripts/drills.sh end to end on a few games: drills, a fine-tune, the measurements and the
table, then a re-run that finds every step done. Needs the datagen and trainer binaries of a
build (`cargo test --profile test-release` or `cargo build --release`; skipped without them)."""

import os
import subprocess
import tempfile
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts/drills.sh"


def binaries():
    for profile in ("test-release", "release"):
        folder = ROOT / "target" / profile
        if (folder / "datagen").is_file() and (folder / "trainer").is_file():
            return folder
    return None


def games_and_results(datagen, folder):
    """(games, 'W/D/L') by `datagen stats`, an independent reader of the files."""
    files = sorted(str(f) for f in Path(folder).glob("*.vf"))
    lines = subprocess.run([str(datagen), "stats", *files], capture_output=True, text=True,
                           check=True).stdout.splitlines()
    return int(lines[0].split()[2]), lines[1].split()[1]


@unittest.skipIf(binaries() is None, "no datagen and trainer build under target/")
class DrillsTest(unittest.TestCase):
    def test_one_step_then_a_rerun_that_redoes_nothing(self):
        bin_dir = binaries()
        with tempfile.TemporaryDirectory() as tmp:
            tmp = Path(tmp)
            ordinary = tmp / "ordinary"
            subprocess.run([str(bin_dir / "datagen"), "play", "--out", str(ordinary), "--games", "4",
                            "--nodes", "300", "--seed", "5"], check=True, capture_output=True)
            env = dict(os.environ, BIN=str(bin_dir), ORDINARY=str(ordinary), DATA=str(tmp / "drills"),
                       GAMES="6", NODES="300", MEASURE_GAMES="3", MEASURE_NODES="500", THREADS="1",
                       LR="0.001", LR_END="0.0001")
            start = ROOT / "nets" / (ROOT / "nets/DEFAULT").read_text().strip()
            run = lambda: subprocess.run(["bash", str(SCRIPT), str(start), "1"], env=env,
                                         capture_output=True, text=True, timeout=600)

            first = run()
            self.assertEqual(first.returncode, 0, first.stderr)
            data = tmp / "drills"
            self.assertEqual((data / "net-0.nnue").read_bytes(), start.read_bytes())
            net1 = (data / "net-1.nnue").read_bytes()
            self.assertEqual(len(net1), len(start.read_bytes()))
            self.assertNotEqual(net1, start.read_bytes(), "the fine-tune changed nothing")
            drill_games, drill_results = games_and_results(bin_dir / "datagen", data / "games-0")
            self.assertEqual(drill_games, 6)
            recipe = (data / "games-0/selfplay-recipe").read_text()
            self.assertIn("random KBNvK", recipe)
            table = first.stdout.splitlines()[-2:]
            for k, row in enumerate(table):
                cells = row.split("\t")
                self.assertEqual(cells[0], str(k), row)
                _, measured = games_and_results(bin_dir / "datagen", data / f"measure-{k}")
                wins, draws, losses = map(int, measured.split("/"))
                self.assertEqual(wins + draws + losses, 3)
                self.assertEqual(cells[3], f"{wins + losses} of 3", row)
            self.assertEqual(table[0].split("\t")[2], f"6 ({drill_results})")
            self.assertEqual(table[0].split("\t")[4], "-")
            float(table[1].split("\t")[4])  # net 1's validation loss

            mtime = (data / "net-1.nnue").stat().st_mtime_ns
            second = run()
            self.assertEqual(second.returncode, 0, second.stderr)
            self.assertEqual((data / "net-1.nnue").stat().st_mtime_ns, mtime)
            self.assertEqual(second.stdout.splitlines()[-2:], table)
            self.assertNotIn("fine-tuning", second.stdout)
            self.assertNotIn("measuring", second.stdout)

            # Stopped between the fine-tune and the copy: the trained net is taken as it is.
            (data / "net-1.nnue").unlink()
            third = run()
            self.assertEqual(third.returncode, 0, third.stderr)
            self.assertEqual((data / "net-1.nnue").read_bytes(), net1)
            self.assertNotIn("fine-tun", third.stdout)

            # Steps trained by the recipe before anchors are not continued as if anchored.
            (data / "anchored").unlink()
            fourth = run()
            self.assertEqual(fourth.returncode, 2)
            self.assertIn("not as anchors", fourth.stderr)

    def test_a_missing_ordinary_set_is_refused(self):
        env = dict(os.environ, BIN=str(binaries()), ORDINARY="/nonexistent")
        out = subprocess.run(["bash", str(SCRIPT), str(ROOT / "nets/DEFAULT"), "1"], env=env,
                             capture_output=True, text=True)
        self.assertEqual(out.returncode, 2)
        self.assertIn("ORDINARY", out.stderr)


if __name__ == "__main__":
    unittest.main()
