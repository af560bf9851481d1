"""generation.sh end to end on stand-ins for cargo, datagen, the trainer, the engine and fastchess:
what it promotes, what it sets aside, and how its SPRT resumes."""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from standins import FASTCHESS, write_program  # noqa: E402

SCRIPTS = Path(__file__).resolve().parent.parent

# `cargo build` run from the repository: writes the three binaries into target/release, the
# engine with the hash of the net EVALFILE names, so that every net gives another binary, as a
# build embedding it does.
CARGO = r'''#!/usr/bin/env python3
import hashlib, os, shutil
from pathlib import Path
release = Path("target/release")
release.mkdir(parents=True, exist_ok=True)
standins = Path(os.environ["STANDINS"])
for name in ("datagen", "trainer"):
    shutil.copy(standins / name, release / name)
engine = release / "patina"
net = hashlib.sha256(Path(os.environ["EVALFILE"]).read_bytes()).hexdigest()
engine.write_text((standins / "patina").read_text() + f"# embeds the net of sha256 {net}\n")
engine.chmod(0o755)
'''

# `bench nn` ends with the embedded net's shape, as the engine's does.
PATINA = '''#!/bin/sh
echo "1000 nodes 1000 nps, king buckets=1, N=128, buckets=1"
'''

# `play --out DIR` adds a game file unless DIR has one (the positions asked for, as a resumed run
# finds them); `stats FILES` counts a game of 100 positions a byte.
DATAGEN = r'''#!/usr/bin/env python3
import sys
from pathlib import Path
args = sys.argv[1:]
if args[0] == "play":
    out = Path(args[args.index("--out") + 1])
    out.mkdir(parents=True, exist_ok=True)
    if not (out / "thread-0.vf").exists():
        (out / "thread-0.vf").write_bytes(b"games")
    (out / "selfplay-recipe").write_text("net parent.nnue sha256 0123456789ab\nnodes 2500\n")
elif args[0] == "stats":
    games = sum(Path(f).stat().st_size for f in args[1:])
    print(f"{len(args) - 1} files, {games} games, {100 * games} positions")
'''

# `train --out-dir RUN --net-id ID --viri F ...` writes the net and the files lineage.py reads;
# the net's bytes name the files it was trained on.
TRAINER = r'''#!/usr/bin/env python3
import json, sys
from pathlib import Path
args = sys.argv[1:]
run = Path(args[args.index("--out-dir") + 1])
net_id = args[args.index("--net-id") + 1]
viri = [args[i + 1] for i, a in enumerate(args) if a == "--viri"]
run.mkdir(parents=True, exist_ok=True)
(run / "config.toml").write_text("viri = " + json.dumps(viri) + "\n")
(run / "log.csv").write_text("superbatch,seconds,train_loss,validation_loss\n1,1.0,0.2,0.3\n")
(run / f"{net_id}.nnue").write_text(" ".join(viri))
'''


class Generation(unittest.TestCase):
    def setUp(self):
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            self.skipTest("matplotlib is not installed (pip install -r scripts/requirements.txt)")
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = Path(self.tmp.name)
        self.repo = self.dir / "repo"
        shutil.copytree(SCRIPTS, self.repo / "scripts", ignore=shutil.ignore_patterns("tests", "__pycache__"))
        (self.repo / "nets").mkdir()
        (self.repo / "nets" / "gen3-128-parent.nnue").write_bytes(b"parent")
        (self.repo / "nets" / "DEFAULT").write_text("gen3-128-parent.nnue\n")
        standins = self.dir / "standins"
        standins.mkdir()
        for name, text in (("cargo", CARGO), ("patina", PATINA), ("datagen", DATAGEN), ("trainer", TRAINER),
                           ("fastchess", FASTCHESS)):
            write_program(standins / name, text)
        (self.dir / "book.pgn").write_text("")
        self.data = self.dir / "data"
        self.fastchess_calls = self.dir / "fastchess-calls"
        # Only what the run needs: a developer's own ELO1, MAX_ROUNDS, WINDOW... stay out.
        self.env = dict(PATH=f"{standins}:{os.environ['PATH']}", HOME=str(self.dir), STANDINS=str(standins),
                        FASTCHESS=str(standins / "fastchess"), FASTCHESS_ARGS=str(self.fastchess_calls),
                        BOOK=str(self.dir / "book.pgn"), DATA=str(self.data), CHUNK="100")

    def tearDown(self):
        self.tmp.cleanup()

    def generation(self, **env):
        return subprocess.run([str(self.repo / "scripts" / "generation.sh")], env=dict(self.env, **env),
                              capture_output=True, text=True)

    def default(self):
        return (self.repo / "nets" / "DEFAULT").read_text().strip()

    def chunks_played(self):
        return len(self.fastchess_calls.read_text().splitlines()) if self.fastchess_calls.exists() else 0

    def test_a_candidate_that_passes_becomes_the_default_with_its_lineage(self):
        done = self.generation(WINNER="new")
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        # Every pair won 2-0 adds 0.02 to the LLR of [0, 5]: 150 pairs pass 2.94 in the third chunk.
        self.assertEqual(self.chunks_played(), 3)
        promoted = self.default()
        self.assertRegex(promoted, r"^gen4-128-[0-9a-f]{8}\.nnue$")
        self.assertEqual((self.repo / "nets" / promoted).read_text(), str(self.data / "gen3" / "thread-0.vf"))
        [entry] = json.loads((self.repo / "nets" / "lineage.json").read_text())
        self.assertEqual((entry["net"], entry["parent"]), (promoted, "gen3-128-parent.nnue"))
        self.assertEqual((entry["sprt"]["games"], entry["sprt"]["wdl"], entry["sprt"]["pentanomial"]),
                         (300, [300, 0, 0], [0, 0, 0, 0, 150]))
        self.assertEqual([s["dir"] for s in entry["data"]["sources"]], ["gen3"])

    def test_a_stopped_sprt_goes_on_from_its_last_chunk(self):
        stop = self.data / "sprt-gen4" / "chunks" / "stop"
        # fastchess makes the stop file as it ends its first chunk, as a person would during it.
        write_program(self.dir / "fastchess-then-stop",
                      f'#!/bin/sh\n"{self.env["FASTCHESS"]}" "$@"; status=$?; touch "{stop}"; exit $status\n')
        stopped = self.generation(WINNER="new", FASTCHESS=str(self.dir / "fastchess-then-stop"))
        self.assertEqual(stopped.returncode, 1)
        self.assertIn("the SPRT was stopped", stopped.stdout)
        self.assertEqual((self.chunks_played(), self.default()), (1, "gen3-128-parent.nnue"))
        # Self-play goes on into the file the candidate was trained on while the SPRT waits.
        with open(self.data / "gen3" / "thread-0.vf", "ab") as games:
            games.write(b"later games")
        stop.unlink()
        done = self.generation(WINNER="new")
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        self.assertEqual(self.chunks_played(), 3, "the first chunk is not played again")
        ledger = (self.data / "sprt-gen4" / "ledger.tsv").read_text()
        self.assertEqual(len([line for line in ledger.splitlines() if line[:1].isdigit()]), 3)
        self.assertRegex(self.default(), r"^gen4-")
        [entry] = json.loads((self.repo / "nets" / "lineage.json").read_text())
        [source] = entry["data"]["sources"]
        self.assertEqual((source["games"], source["positions"]), (5, 500), "the games training read")

    def test_other_binaries_start_the_sprt_afresh(self):
        stop = self.data / "sprt-gen4" / "chunks" / "stop"
        write_program(self.dir / "fastchess-then-stop",
                      f'#!/bin/sh\n"{self.env["FASTCHESS"]}" "$@"; status=$?; touch "{stop}"; exit $status\n')
        self.generation(WINNER="new", FASTCHESS=str(self.dir / "fastchess-then-stop"))
        self.assertEqual(self.chunks_played(), 1)
        # The candidate trained again on more games: another net, another binary.
        shutil.rmtree(self.data / "train-gen4")
        (self.data / "gen3" / "thread-1.vf").write_bytes(b"more games")
        done = self.generation(WINNER="new")
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        self.assertEqual(self.chunks_played(), 4, "three chunks of the new match")
        [old] = self.data.glob("sprt-gen4-superseded-*")
        self.assertTrue((old / "ledger.tsv").exists(), "the old match's games are kept aside")
        [entry] = json.loads((self.repo / "nets" / "lineage.json").read_text())
        self.assertEqual(entry["sprt"]["games"], 300)

    def test_a_candidate_undecided_after_max_rounds_is_set_aside(self):
        done = self.generation(WINNER="new", MAX_ROUNDS="50")
        self.assertEqual(done.returncode, 1)
        self.assertIn("generation 4 not promoted (SPRT: no decision)", done.stdout)
        self.assertEqual(self.chunks_played(), 1)
        self.assertEqual(len(list(self.data.glob("train-gen4-rejected-*"))), 1)

    def test_a_failed_match_keeps_the_candidate_for_a_re_run(self):
        done = self.generation(WINNER="new", GAMES_BEFORE_CRASH="10")
        self.assertEqual(done.returncode, 1)
        self.assertIn("the SPRT failed (match.sh exit code 4", done.stdout)
        self.assertTrue((self.data / "train-gen4").is_dir())
        again = self.generation(WINNER="new")
        self.assertEqual(again.returncode, 0, again.stdout + again.stderr)
        self.assertRegex(self.default(), r"^gen4-")

    def test_a_candidate_that_fails_is_set_aside(self):
        done = self.generation(WINNER="base")
        self.assertEqual(done.returncode, 1)
        self.assertIn("generation 4 not promoted (SPRT: H0 accepted)", done.stdout)
        self.assertEqual(self.default(), "gen3-128-parent.nnue")
        self.assertFalse((self.data / "train-gen4").exists())
        self.assertEqual(len(list(self.data.glob("train-gen4-rejected-*"))), 1)
        self.assertEqual(len(list(self.data.glob("sprt-gen4-rejected-*"))), 1)
        self.assertFalse((self.repo / "nets" / "lineage.json").exists())


if __name__ == "__main__":
    unittest.main()
