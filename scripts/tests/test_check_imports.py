"""check_imports.py: the engine has no knots, and the check finds the knots it is meant to."""

import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import check_imports  # noqa: E402

SCRIPT = Path(__file__).resolve().parent.parent / "check_imports.py"
LAYERS = (("low",), ("mid", "side"), ("high",))


def knots(files, layers=LAYERS):
    """The knots of a crate made of `files` (path under src -> text)."""
    with tempfile.TemporaryDirectory() as root:
        src = Path(root) / "crate" / "src"
        for path, text in files.items():
            (src / path).parent.mkdir(parents=True, exist_ok=True)
            (src / path).write_text(text)
        found = check_imports.check(src, layers)
        return found


def layered(**extra):
    """A crate of the layers' four modules, each file empty unless given. A keyword names a
    file under src without its `.rs`, `__` standing for `/`."""
    files = {"lib.rs": "mod low;\nmod mid;\nmod side;\nmod high;\n"}
    for name in ("low", "mid", "side", "high"):
        files[f"{name}.rs"] = ""
    files.update({path.replace("__", "/") + ".rs": text for path, text in extra.items()})
    return files


class TheEngine(unittest.TestCase):
    def test_the_engine_has_no_knots(self):
        found = check_imports.check()
        self.assertEqual(found, [], "\n" + "\n".join(found))

    def test_the_command_line_exits_0_without_knots(self):
        result = subprocess.run([sys.executable, str(SCRIPT)], capture_output=True, text=True)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)


class Layers(unittest.TestCase):
    def test_downward_imports_are_fine(self):
        high = "use crate::mid::M;\nuse crate::low::L;\n"
        self.assertEqual(knots(layered(high=high, mid="use crate::low::*;\n")), [])

    def test_an_import_from_a_higher_layer_is_a_knot(self):
        found = knots(layered(low="use crate::high::H;\n"))
        self.assertEqual(len(found), 1, found)
        expected = "crate/src/low.rs:1: low uses crate::high::H: `high` is above `low`"
        self.assertIn(expected, found[0])

    def test_a_path_in_the_code_counts_as_an_import(self):
        found = knots(layered(low="const X: usize = 2 * crate::mid::Y as usize;\n"))
        self.assertEqual(len(found), 1, found)
        self.assertIn("`mid` is above `low`", found[0])

    def test_modules_of_one_layer_are_independent(self):
        found = knots(layered(mid="use crate::side::{self, S};\n"))
        self.assertTrue(found and all("`side` is in the layer of `mid`" in k for k in found), found)

    def test_groups_renames_and_nested_modules_are_followed(self):
        found = knots(
            layered(
                low="pub mod deep;\n",
                low__deep="use crate::{mid as m, high::{inner::Thing as T}};\n",
                high="pub mod inner;\n",
                high__inner="pub struct Thing;\n",
            )
        )
        why = sorted(knot.split(": ", 2)[2] for knot in found)
        self.assertEqual(why, ["`high` is above `low`", "`mid` is above `low`"])

    def test_test_code_comments_and_strings_are_no_imports(self):
        low = """
// use crate::high::H;
/* crate::high::H /* nested */ crate::high::H */
const TEXT: &str = "crate::high::H";
const RAW: &str = r#"use crate::high::H;"#;
const QUOTE: char = '"';

#[cfg(test)]
mod tests {
    use crate::high::H;
}

#[cfg(all(test, target_arch = "x86_64"))]
#[allow(unused)]
fn helper() -> u8 { crate::high::f() }

#[cfg(test)]
mod test_file;
"""
        self.assertEqual(knots(layered(low=low, low__test_file="use crate::high::H;\n")), [])

    def test_every_top_level_module_has_a_layer(self):
        files = layered(extra="")
        files["lib.rs"] += "mod extra;\n"
        self.assertEqual(knots(files), ["module `extra` has no place in LAYERS"])
        found = knots(layered(), LAYERS + (("gone",),))
        self.assertEqual(len(found), 1, found)
        self.assertIn("LAYERS names `gone`", found[0])


class SiblingCycles(unittest.TestCase):
    def folder(self, **modules):
        mod_rs = "".join(f"mod {name};\npub use {name}::{name.upper()};\n" for name in modules)
        return layered(mid__mod=mod_rs, **{f"mid__{name}": text for name, text in modules.items()})

    def test_a_cycle_through_re_exports_is_a_knot(self):
        files = self.folder(
            a="use super::B;\npub struct A;\n",
            b="use super::C;\npub struct B;\n",
            c="use super::A;\npub struct C;\n",
        )
        del files["mid.rs"]
        found = knots(files)
        self.assertEqual(len(found), 1, found)
        self.assertIn("sibling cycle mid::a -> mid::b -> mid::c -> mid::a", found[0])
        self.assertIn("crate/src/mid/c.rs:1: mid::c uses super::A", found[0])

    def test_parents_children_and_one_way_siblings_are_fine(self):
        files = self.folder(a="use super::{helper, B};\npub struct A;\n", b="pub struct B;\n")
        files["mid/mod.rs"] += "fn helper() {}\nfn uses() { a::A; }\n"
        del files["mid.rs"]
        self.assertEqual(knots(files), [])


if __name__ == "__main__":
    unittest.main()
