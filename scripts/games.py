#!/usr/bin/env python3
"""Summaries of fastchess PGN files, from the engine's side.

    scripts/games.py results [--engine NAME] GAMES.pgn [...]   W/D/L and Elo ± 95% per opponent
    scripts/games.py endings [--engine NAME] GAMES.pgn [...]   how games ended, per time control
    scripts/games.py wdl [--engine NAME] GAMES.pgn [...]       how the engine's evals predict results
    scripts/games.py clock [--engine NAME] GAMES.pgn [...]     how close each side came to losing on time
    scripts/games.py sprt [--engine NAME] ELO0 ELO1 GAMES.pgn [...]  one SPRT over several runs' games
    scripts/games.py tally [--engine NAME] --ledger FILE GAMES.pgn [...]  one ledger row for these games
    scripts/games.py ledger [--sprt ELO0 ELO1] FILE            a ledger's rows pooled
    scripts/games.py merge FILE OTHER [...]                    add other copies' rows to a ledger

`endings` is the record of time forfeits, illegal moves and crashes that issue 4 asks to be zero
over thousands of games: fastchess's `time forfeit`, `illegal move` and `abandoned` (a crash or a
stall), each split by who lost it (`unknown` when the game was not scored). The engine is
matched by the prefix of its name.

`clock` replays each side's clock from the time fastchess charged for every move (the
`{… 0.287s}` comments) the way fastchess keeps it: the increment is granted up front, a
`moves/time` control adds its time on the move that ends a period, and a side whose clock falls
below zero has lost on time. Per time control and side it reports the lowest clock each game
reached, after the move's time was charged and before its increment: a margin of zero
forfeits means little if games routinely end a few milliseconds from a loss.

`sprt` pools game pairs (the two games of one opening, `-repeat`) from any number of fastchess
runs into one pentanomial SPRT, with fastchess's default normalized-Elo model, alpha = beta =
0.05. It lets a long test run as short, pausable chunks (`FIXED=1 MAX_ROUNDS=25 match.sh sprt`) and
still stop where one uninterrupted fastchess SPRT would. An unfinished pair is left out. Exits
0 when H1 is accepted, 1 for H0, 3 while undecided, like `match.sh sprt`.

`tally` and `ledger` keep a long match's record in a few bytes per chunk: `tally` appends one
tab-separated row (results, game pairs by points, abnormal endings by side, each side's lowest
clock) for one chunk's PGN to a ledger, and `ledger` pools every row into the totals, the Elo
and, with `--sprt`, the LLR that `sprt` would give for all the chunks' PGNs together. The
ledger is a small text file kept apart from the PGNs (outside git, ~/patina-data/matches/ for
gauntlets), so a copy of it carries the count to another machine. Copies played on several
machines at once come back together with `merge`: it appends the rows of each copy that the
ledger lacks, and refuses a copy whose first line (the binaries and settings `match.sh chunks` wrote)
differs. A row may give its results and abnormal endings as `-` (not recorded): the row that
carries over a match's count from a report when its PGNs and ledger are lost; the totals say how
many games lack them.

`wdl` relates the engine's own evals (fastchess's move comments, `{+0.54/12 0.2s}`, from the
mover's view) to the games' results: the mover's mean score per eval bucket, and the scale s of
the logistic score = 1 / (1 + e^(−cp/s)) that fits them best. Tuning search margins, or
normalising the eval, starts from knowing what a centipawn of this net is worth.
"""
import argparse
import collections
import csv
import math
import re
import sys
import time
from pathlib import Path

import stats

TAG = re.compile(r'^\[(\w+) "(.*)"\]\s*$')
EVAL = re.compile(r"\{\s*([+-]?\d+\.\d+)/\d+")
# Movetext tokens: a comment, or a word (a move, a move number such as 12. or 12..., a result).
TOKEN = re.compile(r"\{[^}]*\}|[^\s{}]+")
NOT_A_MOVE = re.compile(r"^(\d+\.+|1-0|0-1|1/2-1/2|\*)$")
# A move's comment: its eval and depth (or "book"), the time it took, and how the game ended.
MOVE_TIME = re.compile(r"\{[^}]*?(\d+(?:\.\d+)?)s(?:, [^}]*)?\}$")
CONTROL = re.compile(r"(?:(\d+)/)?(\d+(?:\.\d+)?)(?:\+(\d+(?:\.\d+)?))?")
ABNORMAL = ("time forfeit", "illegal move", "abandoned")
SCORE = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}


def games_with_moves(paths):
    """Yields (tag dictionary, movetext) for every game in the PGN files."""
    for path in paths:
        tags, moves = {}, []
        with open(path, encoding="utf-8", errors="replace") as pgn:
            for line in pgn:
                match = TAG.match(line)
                if match:
                    if match.group(1) == "Event" and tags:
                        yield tags, "".join(moves)
                        tags, moves = {}, []
                    tags[match.group(1)] = match.group(2)
                else:
                    moves.append(line)
        if tags:
            yield tags, "".join(moves)


def games(paths):
    """Yields the tag dictionary of every game in the PGN files."""
    for tags, _ in games_with_moves(paths):
        yield tags


def fail(message):
    """Ends with an error: exit code 2, since 1 and 3 are SPRT verdicts (see `sprt`)."""
    print(f"games.py: {message}", file=sys.stderr)
    sys.exit(2)


def engine_side(tags, engine):
    """"White" or "Black", whichever the engine played; an error if it played neither or both,
    so that a mistyped --engine never counts the games from the wrong side."""
    white, black = tags.get("White", "").startswith(engine), tags.get("Black", "").startswith(engine)
    if white == black:
        fail(f"--engine {engine!r} matches {'both' if white else 'neither'} of {tags.get('White')!r} and {tags.get('Black')!r}")
    return "White" if white else "Black"


def results(args):
    """W/D/L per opponent, with Elo and its 95% interval from the trinomial variance of the score."""
    wdl = collections.defaultdict(lambda: [0, 0, 0])
    for tags in games(args.pgn):
        white, black = tags.get("White", ""), tags.get("Black", "")
        if tags.get("Result") not in SCORE or white.startswith(args.engine) == black.startswith(args.engine):
            continue
        ours = SCORE[tags["Result"]] if white.startswith(args.engine) else 1 - SCORE[tags["Result"]]
        wdl[black if white.startswith(args.engine) else white][int(2 - 2 * ours)] += 1
    if not wdl:
        fail(f"no finished games of {args.engine} found")
    print("| opponent | games | W / D / L | score | Elo (95%) |")
    print("|---|---:|---|---:|---|")
    for opponent, (w, d, l) in sorted(wdl.items()):
        n = w + d + l
        s, variance = stats.mean_and_variance(stats.TRINOMIAL, (w, d, l))
        low, high = stats.elo_interval(s, math.sqrt(variance / n))
        print(f"| {opponent} | {n} | {w} / {d} / {l} | {100 * s:.1f}% | {stats.elo(s):+.0f} [{low:+.0f}, {high:+.0f}] |")


def ending(tags, engine):
    """How a game ended: None if normally or by adjudication, else (kind, who lost it), with
    `who` one of "engine", "opponent" and "unknown" (the game was not scored)."""
    kind = tags.get("Termination", "normal")
    if kind not in ABNORMAL:
        return None
    loser = {"1-0": tags.get("Black"), "0-1": tags.get("White")}.get(tags.get("Result"))
    return kind, "unknown" if loser is None else "engine" if loser.startswith(engine) else "opponent"


def plays(tags, engine):
    """Whether `engine` (a name prefix) played this game."""
    return any(tags.get(color, "").startswith(engine) for color in ("White", "Black"))


def endings(args):
    counts = collections.defaultdict(collections.Counter)
    for tags in filter(lambda tags: plays(tags, args.engine), games(args.pgn)):
        control = counts[tags.get("TimeControl", "?")]
        control["games"] += 1
        control[ending(tags, args.engine)] += 1
    if not counts:
        fail(f"no games of {args.engine} found (--engine names it)")
    columns = ["games", None] + [(kind, who) for kind in ABNORMAL for who in ("engine", "opponent", "unknown")]
    names = ["games", "normal or adjudicated"] + [
        f"{kind} ({args.engine if who == 'engine' else who})" for kind, who in columns[2:]
    ]
    print("| time control | " + " | ".join(names) + " |")
    print("|---" * (len(columns) + 1) + "|")
    for control, count in sorted(counts.items()):
        print(f"| {control} | " + " | ".join(str(count[c]) for c in columns) + " |")


def scored_plies(movetext):
    """(ply, pawns) for every move whose comment carries a centipawn eval, the ply counted over
    all moves (book moves, mate scores and unscored moves included) from the game's start."""
    ply = -1
    for token in TOKEN.findall(movetext):
        if token.startswith("{"):
            match = EVAL.match(token)
            if match and ply >= 0:
                yield ply, match.group(1)
        elif not NOT_A_MOVE.match(token):
            ply += 1


def lowest_clocks(movetext, control, first):
    """The lowest clock in ms (before increments) that White and Black reached in one game of a
    `[moves/]seconds[+increment]` control, or None for a side that never moved on the clock."""
    moves, base, increment = control
    clocks = [base + increment] * 2
    moves_left = [moves] * 2
    lowest = [None, None]
    ply = -1
    for token in TOKEN.findall(movetext):
        if not token.startswith("{"):
            ply += 0 if NOT_A_MOVE.match(token) else 1
            continue
        timed = MOVE_TIME.search(token)
        if ply < 0 or timed is None:
            continue  # book moves are played before the clocks start
        side = (ply + first) % 2
        if moves and moves_left[side] == 1:
            moves_left[side] = moves
            clocks[side] += base
        elif moves:
            moves_left[side] -= 1
        clocks[side] -= round(float(timed.group(1)) * 1000)
        lowest[side] = clocks[side] if lowest[side] is None else min(lowest[side], clocks[side])
        clocks[side] = max(clocks[side], 0) + increment
    return lowest


def quantile(values, q):
    return values[min(len(values) - 1, int(q * len(values)))]


def first_mover(tags):
    """0 if White made the game's first move, 1 if Black did (a FEN with Black to move)."""
    return 0 if tags.get("FEN") is None or " w " in tags["FEN"] else 1


def game_lows(tags, moves, engine):
    """(side, lowest clock) for each side of one game that moved on a parseable clock."""
    match = CONTROL.fullmatch(tags.get("TimeControl", ""))
    if match is None:
        return []
    control = (int(match.group(1) or 0), *(round(float(x or 0) * 1000) for x in match.group(2, 3)))
    first = first_mover(tags)
    lows = []
    for color, low in zip(("White", "Black"), lowest_clocks(moves, control, first)):
        if low is not None:
            lows.append((engine if tags.get(color, "").startswith(engine) else "opponent", low))
    return lows


def clock(args):
    """Per time control and side: the distribution of each game's lowest clock."""
    lows = collections.defaultdict(list)
    for tags, moves in games_with_moves(args.pgn):
        if not plays(tags, args.engine):
            continue
        for who, low in game_lows(tags, moves, args.engine):
            lows[tags["TimeControl"], who].append(low)
    if not lows:
        fail(f"no timed moves of {args.engine}'s games found (--engine names it)")
    print("| time control | side | games | lowest (ms) | 1st percentile (ms) | median (ms) | games below 100 ms |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for (control, who), values in sorted(lows.items()):
        values.sort()
        below = sum(v < 100 for v in values)
        print(f"| {control} | {who} | {len(values)} | {values[0]} | {quantile(values, 0.01)} | {quantile(values, 0.5)} | {below} |")


def pentanomial(paths, engine):
    """Counts of game pairs by the engine's points in the pair: [0, 0.5, 1, 1.5, 2]."""
    pairs = collections.defaultdict(list)
    for path in paths:
        for tags in games([path]):
            result = tags.get("Result")
            if result in SCORE:
                ours = SCORE[result] if engine_side(tags, engine) == "White" else 1 - SCORE[result]
                pairs[path, tags.get("Round")].append(ours)
    counts = [0] * 5
    for points in pairs.values():
        if len(points) == 2:
            counts[round(2 * sum(points))] += 1
    return counts


def report_pairs(counts, bounds):
    """Prints the Elo of pentanomial counts and, given (elo0, elo1), the SPRT's LLR and verdict;
    returns `match.sh sprt`'s exit code: 0 for H1 (and without bounds), 1 for H0, 3 while undecided."""
    pairs = sum(counts)
    mean, variance = stats.mean_and_variance(stats.PENTANOMIAL, counts)
    low, high = stats.elo_interval(mean, math.sqrt(variance / pairs))
    print(f"Games: {2 * pairs}, Ptnml(0-2): {counts}")
    print(f"Elo: {stats.elo(mean):+.1f} [{low:+.1f}, {high:+.1f}] (95%)")
    if bounds is None:
        return 0
    llr = stats.normalized_llr(counts, *bounds)
    lower, upper = stats.llr_bounds()
    verdict = stats.decision(llr)
    print(f"LLR: {llr:.2f} ({lower:.2f}, {upper:.2f}) [{bounds[0]:.2f}, {bounds[1]:.2f}]")
    print(f"SPRT: {verdict + ' accepted' if verdict else 'no decision'}")
    return {"H1": 0, "H0": 1, None: 3}[verdict]


def sprt(args):
    counts = pentanomial(args.pgn, args.engine)
    if sum(counts) == 0:
        fail(f"no finished game pairs of {args.engine} found")
    sys.exit(report_pairs(counts, (args.elo0, args.elo1)))


def is_row(line):
    """A ledger line that is the header or a chunk's row: not blank, not a # comment."""
    return bool(line.strip()) and not line.startswith("#")


def ledger_column(kind, who):
    return f"{kind.replace(' ', '_')}_{who}"


# Game pairs by the engine's points in the pair, as the ledger's columns name them.
PAIR_POINTS = ("0", "0.5", "1", "1.5", "2")
# A ledger row: when it was tallied, then counts that add up over rows, then the lowest clocks.
LEDGER_ENDINGS = [ledger_column(kind, who) for kind in ABNORMAL for who in ("engine", "opponent", "unknown")]
LEDGER_COUNTS = (
    ["games", "wins", "draws", "losses"] + [f"pairs_{points}" for points in PAIR_POINTS] + LEDGER_ENDINGS
)
LEDGER_COLUMNS = ["tallied", "time_control"] + LEDGER_COUNTS + ["lowest_clock_engine", "lowest_clock_opponent"]
# The counts a row may give as "-" (not recorded), by what they describe.
LEDGER_OPTIONAL = dict.fromkeys(["wins", "draws", "losses"], "results") | dict.fromkeys(LEDGER_ENDINGS, "endings")


def tally(args):
    """Appends one ledger row summarising the games, from the engine's side."""
    row = collections.Counter()
    controls, lows = set(), {args.engine: [], "opponent": []}
    for tags, moves in games_with_moves(args.pgn):
        row["games"] += 1
        controls.add(tags.get("TimeControl", "?"))
        side = engine_side(tags, args.engine)
        if tags.get("Result") in SCORE:
            ours = SCORE[tags["Result"]] if side == "White" else 1 - SCORE[tags["Result"]]
            row[("losses", "draws", "wins")[int(2 * ours)]] += 1
        abnormal = ending(tags, args.engine)
        if abnormal is not None:
            row[ledger_column(*abnormal)] += 1
        for who, low in game_lows(tags, moves, args.engine):
            lows[who].append(low)
    if row["games"] == 0:
        fail("no games found")
    for points, count in zip(PAIR_POINTS, pentanomial(args.pgn, args.engine)):
        row[f"pairs_{points}"] = count
    fields = [time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), ",".join(sorted(controls))]
    fields += [str(row[column]) for column in LEDGER_COUNTS]
    fields += [str(min(lows[who])) if lows[who] else "-" for who in (args.engine, "opponent")]
    with open(args.ledger, "a+", encoding="utf-8") as ledger:
        ledger.seek(0)
        if not any(is_row(line) for line in ledger):
            ledger.write("\t".join(LEDGER_COLUMNS) + "\n")
        ledger.write("\t".join(fields) + "\n")


class Pool:
    """A ledger's rows added up: the counts (`totals`), the lowest clocks by side, the time
    controls, and how many games lack their results or endings (`unrecorded`, by kind)."""

    def __init__(self, path):
        self.totals, self.lowest, self.controls, self.rows = collections.Counter(), {}, set(), 0
        self.unrecorded = collections.Counter()
        with open(path, encoding="utf-8") as file:
            for record in csv.DictReader(filter(is_row, file), delimiter="\t"):
                self.rows += 1
                self.controls.add(record["time_control"])
                # A row carried over from a report whose PGNs are lost may lack the results and
                # endings; its games and pairs, which the Elo and the SPRT need, it always has.
                missing = {column for column in LEDGER_OPTIONAL if record[column] == "-"}
                self.totals.update({column: int(record[column]) for column in LEDGER_COUNTS if column not in missing})
                self.unrecorded.update(dict.fromkeys({LEDGER_OPTIONAL[column] for column in missing}, int(record["games"])))
                for side in ("engine", "opponent"):
                    value = record[f"lowest_clock_{side}"]
                    if value != "-":
                        self.lowest[side] = min(self.lowest.get(side, int(value)), int(value))
        if self.rows == 0:
            fail(f"{path}: no rows")

    def pairs(self):
        """Game pairs by the engine's points: [0, 0.5, 1, 1.5, 2]."""
        return [self.totals[f"pairs_{points}"] for points in PAIR_POINTS]


def ledger(args):
    """Totals over every row of a ledger: results, abnormal endings, lowest clocks, Elo, LLR."""
    pool = Pool(args.ledger[0])
    totals, unrecorded = pool.totals, pool.unrecorded
    print(f"{pool.rows} chunks, time control {', '.join(sorted(pool.controls))}")

    def unless(kind):
        return f" (not recorded for {unrecorded[kind]} games)" if unrecorded[kind] else ""

    print(f"W/D/L: {totals['wins']}/{totals['draws']}/{totals['losses']}" + unless("results"))
    print("abnormal endings: " + ", ".join(f"{c} {totals[c]}" for c in LEDGER_ENDINGS) + unless("endings"))
    print("lowest clock (ms): " + ", ".join(f"{side} {value}" for side, value in sorted(pool.lowest.items())))
    counts = pool.pairs()
    if sum(counts) == 0:
        fail("no finished game pairs")
    sys.exit(report_pairs(counts, args.sprt))


def merge(args):
    """Appends the rows of other copies of a ledger that it does not have yet."""
    def lines(path, missing_ok=False):
        try:
            return Path(path).read_text(encoding="utf-8").splitlines()
        except FileNotFoundError:
            if missing_ok:
                return []
            fail(f"{path}: no such file")
        except OSError as error:
            fail(f"{path}: {error.strerror}")

    def identity(path, text):
        if not text or not text[0].startswith("#"):
            fail(f"{path}: no first line naming the binaries and settings (`match.sh chunks` writes one)")
        return text[0]

    def rows(path, text):
        found = [line for line in text if is_row(line)]
        if found and found[0] != header:
            fail(f"{path}: not a ledger (its first row is not the header)")
        return found[1:]

    header = "\t".join(LEDGER_COLUMNS)
    mine = lines(args.ledger, missing_ok=True)
    copies = [(other, lines(other)) for other in args.other]
    # An empty ledger takes the first copy's match.
    first_line = identity(args.ledger, mine) if mine else identity(*copies[0])
    have = rows(args.ledger, mine)
    added, said = [], []
    for other, theirs in copies:
        if identity(other, theirs) != first_line:
            fail(f"{other} is not a copy of {args.ledger}: their first lines differ")
        their_rows = rows(other, theirs)
        # The rows both had when the copy was made come first in both; of the rest, a row
        # this ledger already has came from an earlier merge.
        shared = 0
        while shared < min(len(have), len(their_rows)) and have[shared] == their_rows[shared]:
            shared += 1
        known = collections.Counter(have[shared:])
        fresh = []
        for row in their_rows[shared:]:
            if known[row] > 0:
                known[row] -= 1
            else:
                fresh.append(row)
        have += fresh
        added += fresh
        games_added = sum(int(row.split("\t")[LEDGER_COLUMNS.index("games")]) for row in fresh)
        said.append(f"{other}: {len(fresh)} rows, {games_added} games added")
    if added:
        # Appended, not rewritten: a `match.sh chunks` still playing into the ledger keeps its rows.
        with open(args.ledger, "a+", encoding="utf-8") as ledger:
            ledger.seek(0)
            text = ledger.read()
            if text and not text.endswith("\n"):
                ledger.write("\n")
            if not mine:
                ledger.write(first_line + "\n")
            if not any(is_row(line) for line in mine):
                ledger.write(header + "\n")
            ledger.write("".join(row + "\n" for row in added))
    print("\n".join(said))


def wdl(args):
    """The mover's score against its eval, per bucket, and the best-fitting logistic scale."""
    points = []
    for tags, moves in games_with_moves(args.pgn):
        white_score = SCORE.get(tags.get("Result"))
        if white_score is None:
            continue
        first = first_mover(tags)
        for ply, value in scored_plies(moves):
            white_moved = (ply + first) % 2 == 0
            mover = tags.get("White" if white_moved else "Black", "")
            cp = float(value) * 100
            if ply >= args.min_ply and mover.startswith(args.engine) and abs(cp) < args.max_cp:
                points.append((cp, white_score if white_moved else 1 - white_score))
    if not points:
        fail(f"no scored moves of {args.engine} found")
    buckets = collections.defaultdict(list)
    for cp, score in points:
        buckets[math.floor(cp / 50) * 50].append(score)
    print(f"{len(points)} evals of {args.engine} (ply ≥ {args.min_ply}, |cp| < {args.max_cp:g})")
    print("| eval (cp) | positions | mover's score |")
    print("|---|---:|---:|")
    for low in sorted(buckets):
        scores = buckets[low]
        print(f"| {low} … {low + 50} | {len(scores)} | {sum(scores) / len(scores):.3f} |")

    def error(scale):
        return sum((1 / (1 + math.exp(-cp / scale)) - score) ** 2 for cp, score in points)

    # Golden-section search: the squared error is unimodal in the scale.
    low, high = 10.0, 5000.0
    ratio = (math.sqrt(5) - 1) / 2
    while high - low > 1:
        a, b = high - ratio * (high - low), low + ratio * (high - low)
        low, high = (low, b) if error(a) < error(b) else (a, high)
    scale = (low + high) / 2
    print(f"best fit: score = 1 / (1 + e^(-cp/{scale:.0f})); a score of 75% at {scale * math.log(3):.0f} cp")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    commands = {}
    for name, function in (
        ("results", results), ("endings", endings), ("wdl", wdl), ("clock", clock), ("sprt", sprt), ("tally", tally),
    ):
        commands[name] = sub.add_parser(name)
        commands[name].add_argument(
            "--engine", default="new", help="whose games: a name prefix (match.sh names Patina `new`)"
        )
        if name == "sprt":
            commands[name].add_argument("elo0", type=float)
            commands[name].add_argument("elo1", type=float)
        commands[name].add_argument("pgn", nargs="+")
        commands[name].set_defaults(run=function)
    commands["wdl"].add_argument("--min-ply", type=int, default=16, help="skip the opening's plies")
    commands["wdl"].add_argument("--max-cp", type=float, default=1000, help="skip larger evals")
    commands["tally"].add_argument("--ledger", required=True, help="the ledger to append the row to")
    commands["ledger"] = sub.add_parser("ledger")
    commands["ledger"].add_argument("--sprt", nargs=2, type=float, metavar=("ELO0", "ELO1"), help="SPRT bounds")
    commands["ledger"].add_argument("ledger", nargs=1)
    commands["ledger"].set_defaults(run=ledger)
    commands["merge"] = sub.add_parser("merge")
    commands["merge"].add_argument("ledger", help="the ledger to add rows to")
    commands["merge"].add_argument("other", nargs="+", help="other copies of it, played elsewhere")
    commands["merge"].set_defaults(run=merge)
    args = parser.parse_args()
    args.run(args)


if __name__ == "__main__":
    main()
