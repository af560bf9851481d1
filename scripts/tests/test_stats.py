"""stats.py against the numbers fastchess printed, and the scripts that report through it."""

import math
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import lineage  # noqa: E402
import stats  # noqa: E402

SCRIPTS = Path(__file__).resolve().parent.parent

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
        self.assertAlmostEqual(stats.expected_score(stats.elo(0.7)), 0.7)

    def test_trinomial_interval(self):
        # The 1+0.01 match in docs/experiments.md: +173 Elo, [+159, +188].
        mean, variance = stats.mean_and_variance(stats.TRINOMIAL, (1234, 453, 313))
        low, high = stats.elo_interval(mean, math.sqrt(variance / 2000))
        self.assertEqual([round(stats.elo(mean)), round(low), round(high)], [173, 159, 188])


def match_log(w, d, l):
    """fastchess's game lines for W/D/L of `new`, as generation.sh's matches log them."""
    results = ["new vs base): 1-0"] * w + ["base vs new): 1/2-1/2"] * d + ["base vs new): 1-0"] * l
    return "".join(f"Finished game {i + 1} ({result}\n" for i, result in enumerate(results))


class Lineage(unittest.TestCase):
    def test_the_recorded_generations(self):
        # nets/README.md: Elo ± error and, for matches fastchess did not decide, this LLR.
        for wdl, bounds, elo, error, llr in [
            ((55, 0, 3), (0, 5), 505.3, 139.8, None),
            ((57, 0, 4), (0, 5), 461.5, 325.1, None),
            ((39, 12, 19), (0, 50), 102.1, 78.2, None),
            ((46, 16, 24), (0, 50), 90.9, 69.1, None),
            ((42, 0, 0), (0, 5), None, None, 1500.10),
            ((11, 8, 18), (0, 50), -66.5, 103.7, -1.84),  # generation 5's first attempt
        ]:
            match = lineage.match_stats(match_log(*wdl), *bounds)
            self.assertEqual(match["wdl"], list(wdl))
            self.assertEqual(match["bounds"], f"(-2.94, 2.94) {list(bounds)}")
            if elo is not None:
                self.assertEqual(f"{match['elo']:+.1f} ± {match['error']:.1f}", f"{elo:+.1f} ± {error:.1f}")
            if llr is not None:
                self.assertEqual(f"{match['llr']:.2f}", f"{llr:.2f}")

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
        data = {"sources": found}
        self.assertEqual(lineage.data_text(data), "gen5: 1 games, 100 positions, ? nodes/move; "
                                                  "gen6-n2500: 2 games, 200 positions, 2500 nodes/move")
        # One source without CPU time leaves the CPU-hours out.
        self.assertEqual(lineage.cost_text(data, {"seconds": 4}), "; self-play 4.01 thread-hours, training 4 s")
        found[0]["selfplay_cpu_hours"] = 2.0
        self.assertEqual(lineage.cost_text(data, {}), "; self-play 4.01 thread-hours (3.5 CPU-hours)")
        found[0]["openings"] = found[1]["openings"]
        self.assertTrue(lineage.data_text(data).endswith("; openings: start position, 8-9 random plies"))
        # One of unknown thread time makes the sum unknown.
        found[1]["selfplay_thread_hours"] = None
        self.assertEqual(lineage.cost_text(data, {}), "")

    def test_nets_recorded_before_sources_were_listed_render_as_they_did(self):
        data = {"games_dir": "gen5", "window_generations": 2, "games": 10, "positions": 1000,
                "nodes_per_move": 5000, "random_plies": "8-9", "selfplay_thread_hours": 7.07}
        self.assertEqual(lineage.data_text(data),
                         "gen5 (+1 earlier): 10 games, 1000 positions, 5000 nodes/move, 8-9 random plies")
        self.assertEqual(lineage.cost_text(data, {"seconds": 6.8}), "; self-play 7.07 thread-hours, training 6.8 s")
        self.assertEqual(lineage.cost_text({}, {}), "")

    def test_verdict_exit_codes(self):
        with tempfile.TemporaryDirectory() as tmp:
            log = Path(tmp) / "fastchess.log"
            for wdl, code in [((42, 0, 0), 0), ((0, 0, 42), 1), ((5, 0, 5), 3)]:
                log.write_text(match_log(*wdl))
                done = subprocess.run([sys.executable, str(SCRIPTS / "lineage.py"), "verdict", "--log", str(log)],
                                      capture_output=True, text=True)
                self.assertEqual(done.returncode, code, (wdl, done.stderr))
                self.assertEqual(done.stdout.splitlines()[-1], "verdict: " + ["H1", "H0", "", "none"][code])


if __name__ == "__main__":
    unittest.main()
