"""The ablation patches (docs/ablations/*.patch) still apply to the committed search: they are
written against alphabeta.rs's lines, and `scripts/ablation.sh` applies them to HEAD."""

import subprocess
import unittest
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


class Ablations(unittest.TestCase):
    def test_every_patch_applies_to_the_committed_search(self):
        if not (REPO / ".git").exists():
            self.skipTest("not a git checkout")
        patches = sorted((REPO / "docs" / "ablations").glob("*.patch"))
        self.assertTrue(patches)
        for patch in patches:
            with self.subTest(patch.name):
                check = subprocess.run(["git", "apply", "--check", "--cached", str(patch)], cwd=REPO, capture_output=True, text=True)
                self.assertEqual(check.returncode, 0, check.stderr)


if __name__ == "__main__":
    unittest.main()
