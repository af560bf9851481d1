"""stats.py against the numbers fastchess printed, and the scripts that report through it."""

import argparse
import hashlib
import json
import math
import sys
import tempfile
import unittest
from pathlib import Path
from unittest import mock

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import games  # noqa: E402
import lineage  # noqa: E402
import stats  # noqa: E402


# Ablation matches in docs/experiments.md: pentanomial counts, with the Elo ± error and the LLR
# for bounds [0, 10] (normalized model) that fastchess 1.x printed for them.
FASTCHESS_PRINTED = [
    ([1, 11, 34, 33, 21], 111, 37, 2.10),
    ([13, 20, 37, 24, 6], -17, 37, -0.46),
    ([22, 31, 25, 15, 7], -81, 43, -1.54),
    ([0, 2, 15, 26, 49], 277, 53, 2.98),
    ([0, 4, 13, 20, 13], 156, 53, 1.28),
    ([2, 8, 16, 12, 12], 85, 59, 0.77),
    ([37, 27, 30, 4, 2], -175, 44, -2.74),
]


def pair_interval(counts):
    mean, variance = stats.mean_and_variance(stats.PENTANOMIAL, counts)
    return mean, stats.elo_interval(mean, math.sqrt(variance / sum(counts)))


class Fastchess(unittest.TestCase):
    def test_elo_and_its_error_match_fastchess(self):
        for counts, elo, error, _ in FASTCHESS_PRINTED:
            mean, (low, high) = pair_interval(counts)
            self.assertEqual(round(stats.elo(mean)), elo, counts)
            self.assertEqual(round((high - low) / 2), error, counts)

    def test_llr_matches_fastchess(self):
        for counts, _, _, llr in FASTCHESS_PRINTED:
            self.assertAlmostEqual(stats.normalized_llr(counts, 0, 10), llr, delta=0.006, msg=counts)

    def test_llr_sign_follows_the_evidence(self):
        even = [10, 40, 100, 40, 10]
        self.assertLess(stats.normalized_llr(even, 0, 5), 0)
        self.assertGreater(stats.normalized_llr(even, -5, 0), 0)

    def test_decision_bounds_are_fastchess_s(self):
        self.assertEqual([f"{bound:.2f}" for bound in stats.llr_bounds()], ["-2.94", "2.94"])
        self.assertEqual([stats.decision(llr) for llr in (2.95, 2.93, -2.93, -2.95)], ["H1", None, None, "H0"])


class Elo(unittest.TestCase):
    def test_perfect_scores(self):
        self.assertEqual((stats.elo(1), stats.elo(0)), (math.inf, -math.inf))
        self.assertAlmostEqual(stats.elo(1, 1e-6), 2400, places=3)
        self.assertEqual(stats.elo(0.5), 0)
        self.assertAlmostEqual(stats.elo(0.75), 400 * math.log10(3))

    def test_trinomial_interval(self):
        # The 1+0.01 match in docs/experiments.md: +173 Elo, [+159, +188].
        mean, variance = stats.mean_and_variance(stats.TRINOMIAL, (1234, 453, 313))
        low, high = stats.elo_interval(mean, math.sqrt(variance / 2000))
        self.assertEqual([round(stats.elo(mean)), round(low), round(high)], [173, 159, 188])


def write_ledger(path, *rows):
    """A ledger as `match.sh chunks` keeps it, one row per (W/D/L, pentanomial) given."""
    lines = ["# new 0123, base 4567, tc 8+0.08", "\t".join(games.LEDGER_COLUMNS)]
    for (w, d, l), pairs in rows:
        counts = [w + d + l, w, d, l, *pairs] + [0] * len(games.LEDGER_ENDINGS)
        lines.append("\t".join(["2026-12-07T09:06:36Z", "8+0.08", *map(str, counts), "338", "339"]))
    path.write_text("\n".join(lines) + "\n")


class Lineage(unittest.TestCase):
    def test_the_sprt_is_recorded_as_its_chunks_decided_it(self):
        with tempfile.TemporaryDirectory() as tmp:
            ledger = Path(tmp) / "ledger.tsv"
            # The first two chunks of gen13's SPRT against gen12: fastchess gave the first
            # +20.87 Elo, games.py the pair +20.9 [-18.5, +60.7] and LLR 0.26 at [0, 10].
            write_ledger(ledger, ((10, 33, 7), (1, 4, 13, 5, 2)), ((9, 35, 6), (0, 4, 15, 5, 1)))
            match = lineage.match_stats(ledger, 0.0, 10.0)
            self.assertEqual((match["games"], match["wdl"], match["pentanomial"]), (100, [19, 68, 13], [1, 8, 28, 10, 3]))
            self.assertEqual(f"{match['elo']:+.1f} ± {match['error']:.1f}, LLR {match['llr']:.2f}", "+20.9 ± 39.6, LLR 0.26")
            self.assertEqual(match["bounds"], "(-2.94, 2.94) [0.0, 10.0]")
            # Every pair won: the upper side is unbounded, so the error is the distance to the lower bound.
            write_ledger(ledger, ((400, 0, 0), (0, 0, 0, 0, 200)))
            match = lineage.match_stats(ledger, 0.0, 5.0)
            self.assertGreater(match["llr"], 2.94)
            self.assertTrue(math.isfinite(match["elo"]) and 0 < match["error"] < match["elo"])

    def test_a_match_without_losses_quotes_its_lower_bound(self):
        self.assertEqual(round(lineage.lower_bound([42, 0, 0])), 476)

    def test_every_data_directory_is_listed_with_its_recipe_and_cost(self):
        with tempfile.TemporaryDirectory() as tmp:
            tmp = Path(tmp)
            # A stand-in for `datagen stats`: one game of 100 positions per file it is given.
            datagen = tmp / "datagen"
            datagen.write_text('#!/bin/sh\nshift\necho "$# files, $# games, $(($# * 100)) positions"\n')
            datagen.chmod(0o755)
            new, old = tmp / "gen6-n2500", tmp / "gen5"
            for d in (new, old):
                d.mkdir()
            # The forms datagen writes (datagen/src/recipe.rs, spent.rs): values may hold spaces.
            (new / "selfplay-recipe").write_text(
                "net gen6.nnue sha256 0123456789ab\nnodes 2500\nopenings start position, 8-9 random plies\n")
            (new / "selfplay-time").write_text("wall_seconds 3600\nthread_seconds 7245\ncpu_seconds 5400\n")
            # A directory from before datagen kept recipes and CPU time.
            (old / "selfplay-time").write_text("wall_seconds 3600\nthread_seconds 7200\n")
            config = {"viri": [str(old / "thread-0.vf"), str(new / "thread-0.vf"), str(new / "thread-1.vf")]}
            found = lineage.sources(str(datagen), config)
        self.assertEqual([(s["dir"], s["files"], s["games"], s["positions"]) for s in found],
                         [("gen5", 1, 1, 100), ("gen6-n2500", 2, 2, 200)])
        self.assertEqual([s["nodes_per_move"] for s in found], [None, 2500])
        self.assertEqual([s["net"] for s in found], [None, "gen6.nnue sha256 0123456789ab"])
        self.assertEqual([(s["selfplay_thread_hours"], s["selfplay_cpu_hours"]) for s in found],
                         [(2.0, None), (2.01, 1.5)])

    def test_record_appends_the_net_and_plots(self):
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            self.skipTest("matplotlib is not installed (pip install -r scripts/requirements.txt)")
        with tempfile.TemporaryDirectory() as tmp:
            tmp = Path(tmp)
            nets, train = tmp / "nets", tmp / "train"
            nets.mkdir()
            train.mkdir()
            (nets / "gen1.nnue").write_bytes(b"weights")
            (train / "log.csv").write_text("superbatch,seconds,train_loss,validation_loss\n1,1.5,0.2,0.3\n2,2.5,0.1,0.2\n")
            (train / "config.toml").write_text(f'viri = ["{tmp / "gen0" / "thread-0.vf"}"]\n')
            datagen = tmp / "datagen"
            datagen.write_text('#!/bin/sh\necho "1 files, 7 games, 700 positions"\n')
            datagen.chmod(0o755)
            write_ledger(tmp / "ledger.tsv", ((30, 10, 0), (0, 0, 0, 10, 10)))
            args = argparse.Namespace(net="gen1.nnue", parent="gen0.nnue", hidden=128, buckets=1, king_buckets=1, factoriser=False,
                                      datagen=str(datagen), window=1, train_dir=str(train),
                                      sprt_ledger=str(tmp / "ledger.tsv"), tc="8+0.08", elo0=0.0, elo1=5.0)
            with mock.patch.object(lineage, "NETS", nets), mock.patch.object(lineage, "LINEAGE", nets / "lineage.json"):
                lineage.record(args)
                lineage.record(args)  # a promotion recorded again replaces its entry
            [entry] = json.loads((nets / "lineage.json").read_text())
            self.assertTrue((nets / "elo-by-generation.png").stat().st_size > 0)
        self.assertEqual(entry["sha256"], hashlib.sha256(b"weights").hexdigest())
        self.assertEqual([(s["dir"], s["games"]) for s in entry["data"]["sources"]], [("gen0", 7)])
        self.assertEqual((entry["training"]["superbatches"], entry["training"]["seconds"],
                          entry["training"]["final_validation_loss"]), (2, 4.0, 0.2))
        self.assertEqual((entry["sprt"]["wdl"], entry["sprt"]["games"]), ([30, 10, 0], 40))


if __name__ == "__main__":
    unittest.main()
