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

# Ablation matches in CHANGELOG.md: pentanomial counts, with the Elo ± error and the LLR
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
        # The 1+0.01 time-forfeit match in CHANGELOG.md: +173 Elo, [+159, +188].
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

    def test_the_lineage_reads_what_self_play_and_training_cost(self):
        with tempfile.TemporaryDirectory() as tmp:
            games = Path(tmp)
            self.assertIsNone(lineage.selfplay_hours(games, "thread_seconds"))
            # The form datagen writes (datagen/src/spent.rs); older files have no cpu_seconds.
            (games / "selfplay-time").write_text("wall_seconds 3600.000\nthread_seconds 7245.000\n")
            hours = lineage.selfplay_hours(games, "thread_seconds")
            self.assertEqual(hours, 2.01)
            self.assertIsNone(lineage.selfplay_hours(games, "cpu_seconds"))
            (games / "selfplay-time").write_text(
                "wall_seconds 3600.000\nthread_seconds 7245.000\ncpu_seconds 5400.000\n")
            self.assertEqual(lineage.selfplay_hours(games, "cpu_seconds"), 1.5)
            text = lineage.cost_text({"selfplay_thread_hours": hours}, {"seconds": 6.8})
            self.assertEqual(text, "; self-play 2.01 thread-hours, training 6.8 s")
            self.assertEqual(lineage.cost_text({}, {}), "")

    def test_every_data_directory_is_listed_with_its_recipe_and_cost(self):
        with tempfile.TemporaryDirectory() as tmp:
            games = Path(tmp)
            self.assertIsNone(lineage.key_values(games / "selfplay-recipe"))
            # The form datagen writes (datagen/src/recipe.rs): values may hold spaces.
            (games / "selfplay-recipe").write_text(
                "net gen6-256-ob8-4dc516a6.nnue\nnodes 2500\nopenings start position, 8-9 random plies\n")
            recipe = lineage.key_values(games / "selfplay-recipe")
            self.assertEqual((recipe["nodes"], recipe["openings"]), ("2500", "start position, 8-9 random plies"))
        data = {"sources": [
            {"dir": "gen6", "games": 10, "positions": 1000, "nodes_per_move": 5000, "selfplay_thread_hours": 2.2},
            {"dir": "gen6-n2500", "games": 20, "positions": 2000, "nodes_per_move": 2500,
             "selfplay_thread_hours": 2.21},
        ]}
        self.assertEqual(lineage.data_text(data), "gen6: 10 games, 1000 positions, 5000 nodes/move; "
                                                  "gen6-n2500: 20 games, 2000 positions, 2500 nodes/move")
        self.assertEqual(lineage.cost_text(data, {"seconds": 4}), "; self-play 4.41 thread-hours, training 4 s")
        for s, cpu in zip(data["sources"], [1.5, 2.0]):
            s["selfplay_cpu_hours"] = cpu
        self.assertEqual(lineage.cost_text(data, {}), "; self-play 4.41 thread-hours (3.5 CPU-hours)")
        # One directory of unknown cost makes the sum unknown.
        data["sources"][1]["selfplay_thread_hours"] = None
        self.assertEqual(lineage.cost_text(data, {}), "")

    def test_verdict_exit_codes(self):
        with tempfile.TemporaryDirectory() as tmp:
            log = Path(tmp) / "fastchess.log"
            for wdl, code in [((42, 0, 0), 0), ((0, 0, 42), 1), ((5, 0, 5), 3)]:
                log.write_text(match_log(*wdl))
                done = subprocess.run([sys.executable, str(SCRIPTS / "lineage.py"), "verdict", "--log", str(log)],
                                      capture_output=True, text=True)
                self.assertEqual(done.returncode, code, (wdl, done.stderr))


if __name__ == "__main__":
    unittest.main()
