#!/usr/bin/env python3
"""Finds the engine's knots: imports that run back up its module hierarchy.

The rule, over the library in engine/src (lib.rs is its root and may name anything; main.rs is
another crate, a client of the library):

1. The top-level modules are layered, lowest first, as LAYERS lists them. A module may import
   from its own top-level module and from any lower layer, never from a higher one, nor from
   another module of its own layer (modules that share a layer are independent of each other).
   A top-level module missing from LAYERS is a knot, and so is a LAYERS entry that engine/src
   lacks: adding, moving or removing a module means placing it here.
2. Inside a top-level module, sibling modules (children of one parent, such as `search::iterate`
   and `search::alphabeta`) must not import each other in a cycle. An import of a sibling's
   descendant counts as one of the sibling. A module may use its ancestors (a folder's `mod.rs`
   is its interface) and its descendants.

An import is any path that names a module of the crate: a `use` item (groups, renames and globs
included, at any depth) or a `crate::`, `super::` or `self::` path in the code. Paths are
resolved through the `use` items of the modules they pass, so `super::ThreadData`, re-exported
by `search/mod.rs` from `thread_data.rs`, is an import of `search::thread_data`. Code under
`#[cfg(test)]` (or `cfg(all(test, ...))`) is exempt: a test is a client of its module and may
use the whole crate (the movegen tests count nodes with `tools::perft`). Macro bodies are read
as code.

`python3 scripts/check_imports.py [SRC]` prints each knot and exits 1 if there is any. Standard
library only.
"""
import re
import sys
from collections import defaultdict
from pathlib import Path

# Lowest first. The modules of one layer are independent of each other.
LAYERS = (
    ("types", "cpu", "memory"),  # plain values and the platform: nothing of the engine
    ("board",),  # the position, move generation, attack tables
    ("nnue", "tt", "syzygy"),  # what the search consults: the net, the hash table, the tables
    ("search",),  # the search with its threads, time management and root moves
    ("engine",),  # the facade: a position, options, a search in the background
    ("tools", "wdl"),  # built on the facade (bench, genfens, books); the printed scores' model
    ("uci",),  # the front end
)

ENGINE_SRC = Path(__file__).resolve().parent.parent / "engine" / "src"

TOKEN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|::|\S")
RAW_STRING = re.compile(r'b?r(#*)"')
CHAR = re.compile(r"b?'(\\(u\{[0-9a-fA-F]+\}|x[0-9a-fA-F]{2}|.)|[^\\'\n])'")
ITEM_KINDS = (
    "use", "fn", "mod", "impl", "struct", "enum", "trait", "const", "static", "type", "macro_rules",
)


def blank(text):
    """`text` with comments, strings and character literals blanked out, its lines kept."""
    out = []
    i, n = 0, len(text)
    while i < n:
        start = i
        if text.startswith("//", i):
            i = text.find("\n", i)
            i = n if i < 0 else i
        elif text.startswith("/*", i):
            depth, i = 1, i + 2
            while i < n and depth:
                step = text[i : i + 2]
                depth += {"/*": 1, "*/": -1}.get(step, 0)
                i += 2 if step in ("/*", "*/") else 1
        elif (m := RAW_STRING.match(text, i)) and not (i and re.match(r"\w", text[i - 1])):
            end = text.find('"' + m.group(1), m.end())
            i = n if end < 0 else end + 1 + len(m.group(1))
        elif text[i] == '"':
            i += 1
            while i < n and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
            i += 1
        elif m := CHAR.match(text, i):
            i = m.end()
        else:
            out.append(text[i])
            i += 1
            continue
        out.append(re.sub(r"[^\n]", " ", text[start:i]))
    return "".join(out)


def tokens(text):
    """(token, line) pairs of blanked source."""
    line, pos = 1, 0
    for m in TOKEN.finditer(text):
        line += text.count("\n", pos, m.start())
        pos = m.start()
        yield m.group(0), line


def use_leaves(toks):
    """The paths a use tree's tokens name, each with the name it binds (None for a glob)."""
    leaves = []

    def tree(i, prefix):
        path = list(prefix)
        while i < len(toks):
            t = toks[i]
            if t == "{":
                i += 1
                while toks[i] != "}":
                    i = tree(i, path)
                    if toks[i] == ",":
                        i += 1
                return i + 1
            if t == "*":
                leaves.append((path, None))
                return i + 1
            if t in (",", "}"):
                break
            if t == "as":
                leaves.append((path, toks[i + 1]))
                return i + 2
            if t != "::" and not (t == "self" and path):
                path.append(t)
            i += 1
        if path:
            leaves.append((path, path[-1]))
        return i

    tree(0, [])
    return leaves


def is_test_only(attribute):
    """Whether an attribute's tokens (inside `#[...]`) compile its item for tests alone."""
    return attribute == ["cfg", "(", "test", ")"] or (
        attribute[:4] == ["cfg", "(", "all", "("] and "test" in attribute and "not" not in attribute
    )


class Module:
    def __init__(self, path, file):
        self.path = path  # names from the crate root
        self.file = file
        self.imports = {}  # name bound by a `use` -> (path segments, module the `use` is in)
        self.uses = []  # (path segments, line)


def module_path(src, file):
    parts = list(file.relative_to(src).with_suffix("").parts)
    if parts[-1] in ("lib", "mod"):
        parts.pop()
    return tuple(parts)


def parse(src, file, modules, test_only):
    """Adds the file's modules (its own and inline ones) with their imports to `modules`, and
    the modules it declares for tests alone (`#[cfg(test)] mod x;`) to `test_only`."""
    own = module_path(src, file)
    toks = list(tokens(blank(file.read_text(encoding="utf-8"))))
    names = [t for t, _ in toks] + ["", "", ""]  # lookahead past the end reads ""
    modules.setdefault(own, Module(own, file))
    braces = []  # per open brace, whether it opened an inline module
    current = [own]

    def past_attribute(i):
        depth = 0
        while True:
            depth += {"[": 1, "]": -1}.get(names[i], 0)
            i += 1
            if depth == 0 and names[i - 1] == "]":
                return i

    def past_item(i):
        depth, kind = 0, None
        while i < len(names):
            t = names[i]
            if kind is None and t in ITEM_KINDS:
                kind = t
                if t == "mod" and names[i + 2] == ";":
                    test_only.add(current[-1] + (names[i + 1],))
            if t in ("(", "[", "{"):
                depth += 1
            elif t in (")", "]", "}"):
                depth -= 1
                if depth == 0 and t == "}" and kind not in ("use", "const", "static", "type", None):
                    return i + 1
            elif t == ";" and depth == 0:
                return i + 1
            i += 1
        return i

    i = 0
    while i < len(names):
        t = names[i]
        if t == "#" and names[i + 1] in ("[", "!"):
            j = past_attribute(i + 1)
            if names[i + 1] == "[" and is_test_only(names[i + 2 : j - 1]):
                while names[j] == "#":  # the item's other attributes
                    j = past_attribute(j + 1)
                j = past_item(j)
            i = j
        elif t == "mod" and names[i + 2] == "{":
            inner = current[-1] + (names[i + 1],)
            modules.setdefault(inner, Module(inner, file))
            braces.append(True)
            current.append(inner)
            i += 3
        elif t == "use":
            j = names.index(";", i)
            module = modules[current[-1]]
            for segments, name in use_leaves(names[i + 1 : j]):
                module.uses.append((segments, toks[i][1]))
                if name not in (None, "_"):
                    module.imports[name] = (segments, current[-1])
            i = j + 1
        elif t in ("crate", "super", "self") and names[i + 1] == "::" and names[i - 1] != "::":
            segments, j = [t], i + 1
            while names[j] == "::" and re.match(r"\w", names[j + 1]):
                segments.append(names[j + 1])
                j += 2
            modules[current[-1]].uses.append((segments, toks[i][1]))
            i = j
        else:
            if t == "{":
                braces.append(False)
            elif t == "}" and braces.pop():
                current.pop()
            i += 1


def resolve(modules, segments, within, depth=0):
    """The module whose item a path used in module `within` names, or None outside the crate."""
    if depth > 20:  # `use` items that name each other in a ring (rustc refuses those too)
        return None
    first, rest = segments[0], segments[1:]
    if first == "crate":
        module = ()
    elif first in ("super", "self"):
        module = within if first == "self" else within[:-1]
        while rest and rest[0] == "super":
            module, rest = module[:-1], rest[1:]
    elif within + (first,) in modules:
        module, rest = within, segments
    elif first in modules[within].imports:
        imported, at = modules[within].imports[first]
        return resolve(modules, imported + rest, at, depth + 1)
    else:
        return None
    for k, name in enumerate(rest):
        if module + (name,) in modules:
            module += (name,)
            continue
        if name in modules[module].imports:
            imported, at = modules[module].imports[name]
            return resolve(modules, imported + rest[k + 1 :], at, depth + 1) or module
        break
    return module


def check(src=ENGINE_SRC, layers=LAYERS):
    """The knots of the crate at `src`, one message each."""
    src = Path(src)
    modules, test_only = {}, set()
    for file in sorted(src.rglob("*.rs")):
        if file.relative_to(src).parts != ("main.rs",):
            parse(src, file, modules, test_only)
    knots = []
    layer = {name: index for index, group in enumerate(layers) for name in group}
    top_level = {path[0] for path in modules if path}
    for name in sorted(top_level - layer.keys()):
        knots.append(f"module `{name}` has no place in LAYERS")
    for name in sorted(layer.keys() - top_level):
        knots.append(f"LAYERS names `{name}`, which {src} lacks")

    sibling_edges = defaultdict(list)  # (a, b) -> where a module under a uses one under b
    for module in modules.values():
        if not module.path or any(module.path[: len(t)] == t for t in test_only):
            continue
        for segments, line in module.uses:
            target = resolve(modules, segments, module.path)
            if not target or target == module.path:
                continue
            file = module.file.relative_to(src.parent.parent)
            where = f"{file}:{line}: {'::'.join(module.path)} uses {'::'.join(segments)}"
            ours, theirs = module.path[0], target[0]
            if ours != theirs:
                if ours in layer and theirs in layer and layer[theirs] >= layer[ours]:
                    relation = "above" if layer[theirs] > layer[ours] else "in the layer of"
                    knots.append(f"{where}: `{theirs}` is {relation} `{ours}`")
                continue
            shorter, common = min(len(module.path), len(target)), 0
            while common < shorter and module.path[common] == target[common]:
                common += 1
            if common < shorter:  # neither module contains the other
                sibling_edges[(module.path[: common + 1], target[: common + 1])].append(where)

    for cycle in cycles(sibling_edges):
        lines = [w for a, b in zip(cycle, cycle[1:] + cycle[:1]) for w in sibling_edges[(a, b)]]
        route = " -> ".join("::".join(m) for m in cycle + cycle[:1])
        message = f"sibling cycle {route}:\n    " + "\n    ".join(lines)
        knots.append(message)
    return knots


def cycles(edges):
    """A shortest cycle through each strongly connected group of more than one module."""
    successors = defaultdict(list)
    for a, b in sorted(edges):
        successors[a].append(b)
    index, low, on_stack, stack, groups = {}, {}, set(), [], []

    def visit(v):  # Tarjan's algorithm
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in successors[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = set()
            while v not in group:
                group.add(stack.pop())
            on_stack.difference_update(group)
            if len(group) > 1:
                groups.append(group)

    for v in sorted(set(successors) | {b for _, b in edges}):
        if v not in index:
            visit(v)
    found = []
    for group in groups:  # breadth first from the group's first module back to it
        start = min(group)
        previous, frontier, last = {start: None}, [start], None
        while last is None:
            reached = []
            for v in frontier:
                for w in successors[v]:
                    if w == start:
                        last = last or v
                    elif w in group and w not in previous:
                        previous[w] = v
                        reached.append(w)
            frontier = reached
        path = [last]
        while previous[path[-1]] is not None:
            path.append(previous[path[-1]])
        found.append(path[::-1])
    return found


def main(argv):
    src = Path(argv[1]) if len(argv) > 1 else ENGINE_SRC
    knots = check(src)
    for knot in knots:
        print(knot)
    if knots:
        rule = f"the rule is in {Path(__file__).name}'s docstring"
        print(f"{len(knots)} knot(s); {rule}", file=sys.stderr)
        return 1
    print("no knots")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
