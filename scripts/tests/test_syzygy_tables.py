"""scripts/syzygy-tables.sh's list of tables: the published 3-4-5-piece set's names, each table
after every table its captures and promotions lead to (the generator needs them on disk)."""

import subprocess
import unittest
from pathlib import Path

SCRIPT = Path(__file__).resolve().parent.parent / "syzygy-tables.sh"
VALUE = {"Q": 4, "R": 3, "B": 2, "N": 1, "P": 0}


def listed(max_pieces):
    out = subprocess.run(
        ["bash", str(SCRIPT), "--list", str(max_pieces)], capture_output=True, text=True, check=True
    )
    return out.stdout.split()


def sides(name):
    strong, weak = name.split("v")
    return strong[1:], weak[1:]


def successors(name):
    """The materials one capture or one promotion away, each side as a sorted piece string."""
    strong, weak = sides(name)
    sort = lambda pieces: "".join(sorted(pieces, key=VALUE.get, reverse=True))
    result = set()
    for side, other in ((strong, weak), (weak, strong)):
        for i, piece in enumerate(side):
            rest = side[:i] + side[i + 1 :]
            if rest or other:  # bare kings have no table
                result.add(material(sort(rest), sort(other)))
            if piece == "P":
                for promoted in "QRBN":
                    changed = sort(rest + promoted)
                    result.add(material(changed, sort(other)))
    return result


def material(strong, weak):
    """The two sides' pieces, in either order: a pair of equal sides stays one."""
    return frozenset([strong, weak]) if strong != weak else (strong,)


def table_material(name):
    return material(*sides(name))


class ListTest(unittest.TestCase):
    def test_names_are_canonical_and_unique(self):
        tables = listed(5)
        self.assertEqual(len(tables), 5 + 30 + 110)
        self.assertEqual(len(set(map(table_material, tables))), len(tables))
        for name in tables:
            strong, weak = sides(name)
            for side in (strong, weak):
                self.assertEqual(list(side), sorted(side, key=VALUE.get, reverse=True), name)
            # The stronger side first: more pieces, or as many and the more valuable ones.
            key = lambda side: (len(side), [VALUE[p] for p in side])
            self.assertGreaterEqual(key(strong), key(weak), name)

    def test_every_table_comes_after_the_ones_it_needs(self):
        seen = set()
        for name in listed(5):
            for needed in successors(name):
                self.assertIn(needed, seen, f"{name} needs {sorted(needed)} first")
            seen.add(table_material(name))

    def test_max_limits_the_piece_count(self):
        self.assertEqual(listed(3), ["KBvK", "KNvK", "KQvK", "KRvK", "KPvK"])
        self.assertEqual(len(listed(4)), 35)
        self.assertTrue(set(listed(4)) < set(listed(5)))


if __name__ == "__main__":
    unittest.main()
