#!/usr/bin/env python3
"""SPSA tuning of the search parameters with fastchess, resumable.

    cargo build --release -p patina --features tune        # every parameter becomes a spin option
    cp target/release/patina ~/patina-data/bin/patina-tune
    scripts/spsa.py ~/patina-data/bin/patina-tune --state ~/patina-data/spsa/state.json \\
        --iterations 2000 [--params rfp_margin,razor_margin] [--tc 8+0.08] [--pairs 2]

Each iteration perturbs every tuned parameter by ±c_k (random signs), plays `--pairs` game pairs
(same opening, colours swapped) of θ+c_k·δ against θ−c_k·δ (rounded to integers and kept in
bounds), and moves θ by a_k·(W−L)/h, h being half the difference actually played (c_k·δ before
rounding), with Fishtest's schedules: c_k = c/k^0.101, a_k = a/(A+k)^0.602, A = iterations/10,
set so that c_k ends at c_end = max(1, (max−min)/20) and a_k/c_k² at r_end = 0.002 (per parameter; override with
--c-end-fraction and --r-end). The state file holds θ, the iteration and the settings after
every iteration, so a killed run continues where it stopped; `--state` with a new path starts
afresh. The log beside it has one CSV row per iteration. At the end (or with --show) the tuned
values are printed as `setoption` lines and as `params.rs` entries.

Each iteration's games are a fixed-length `scripts/match.sh sprt` match (fastchess from $FASTCHESS or
PATH, the book from ../shared/books unless --book names one).
"""
import argparse
import json
import os
import random
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from games import SCORE, games  # noqa: E402

MATCH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "match.sh")
# What the tune build adds: its parameters are named as in params.rs, Rust names in lower case
# (rfp_margin); every standard UCI option (Hash, Threads, SyzygyProbeDepth, ...) is capitalised.
TUNABLE = re.compile(r"[a-z][a-z0-9_]*")
ALPHA, GAMMA = 0.602, 0.101


def spin_options(engine):
    """The engine's spin options as {name: (default, min, max)}, read from its `uci` answer."""
    out = subprocess.run([engine], input="uci\nquit\n", capture_output=True, text=True,
                         timeout=30, check=True).stdout
    options = {}
    for line in out.splitlines():
        words = line.split()
        if words[:2] != ["option", "name"] or "spin" not in words:
            continue
        kind = words.index("type")
        name = " ".join(words[2:kind])
        fields = dict(zip(words[kind + 2::2], words[kind + 3::2]))
        options[name] = tuple(int(fields[k]) for k in ("default", "min", "max"))
    return options


def fresh_state(engine, args):
    if args.iterations < 1 or args.pairs < 1:
        sys.exit("--iterations and --pairs must be at least 1")
    options = spin_options(engine)
    wanted = args.params.split(",") if args.params else [n for n in options if TUNABLE.fullmatch(n)]
    unknown = [n for n in wanted if n not in options]
    if unknown:
        sys.exit(f"not spin options of {engine} (built with --features tune?): {', '.join(unknown)}")
    if not wanted:
        sys.exit(f"{engine} has no tunable spin options: build it with --features tune")
    params = {}
    for name in wanted:
        default, low, high = options[name]
        # At least 1, so θ± round to different integers (away from the bounds).
        c_end = max(1.0, (high - low) * args.c_end_fraction)
        params[name] = {"value": float(default), "default": default, "min": low, "max": high,
                        "c_end": c_end, "r_end": args.r_end}
    settings = {key: getattr(args, key) for key in ("iterations", "pairs", "tc", "hash", "book", "seed")}
    return {"iteration": 0, "settings": settings, "params": params}


def gains(param, iterations):
    """(c, a) of a parameter: c_k = c/k^γ and a_k = a/(A+k)^α end at c_end and r_end·c_end²."""
    big_a = iterations / 10
    c = param["c_end"] * iterations ** GAMMA
    a = param["r_end"] * param["c_end"] ** 2 * (big_a + iterations) ** ALPHA
    return c, a, big_a


def option_words(values):
    return [f"option.{name}={value}" for name, value in values.items()]


def play(engine, plus, minus, settings, seed):
    """W − L of θ+ over `pairs` game pairs, and the number of games played: a fixed-length match
    played by `scripts/match.sh sprt`, θ+ as `new` and θ− as `base`."""
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, FIXED="1", MAX_ROUNDS=str(settings["pairs"]), OUT=tmp,
                   TC=settings["tc"], HASH=str(settings["hash"]), THREADS="1", SRAND=str(seed),
                   NEW_OPTIONS=" ".join(option_words(plus)), BASE_OPTIONS=" ".join(option_words(minus)))
        env.pop("BOOK", None)
        if settings["book"]:
            env["BOOK"] = settings["book"]
        match = subprocess.run([MATCH, "sprt", engine, engine], env=env, capture_output=True, text=True)
        wins_minus_losses, played = 0, 0
        pgn = os.path.join(tmp, "games.pgn")
        for tags in games([pgn]) if os.path.exists(pgn) else []:
            score = SCORE.get(tags.get("Result"))
            if score is None:
                continue
            plus_score = score if tags.get("White") == "new" else 1 - score
            wins_minus_losses += {1.0: 1, 0.5: 0, 0.0: -1}[plus_score]
            played += 1
        if played == 0:
            sys.exit(f"no game finished (scripts/match.sh exit {match.returncode}):\n{match.stderr}")
        return wins_minus_losses, played


def iterate(state, engine):
    """Plays iteration k and moves θ; returns (W − L of θ+, games played)."""
    settings, params = state["settings"], state["params"]
    k = state["iteration"] + 1
    rng = random.Random(settings["seed"] * 1_000_003 + k)
    plus, minus, steps = {}, {}, {}
    for name, p in params.items():
        c, a, big_a = gains(p, settings["iterations"])
        c_k, a_k = c / k ** GAMMA, a / (big_a + k) ** ALPHA
        delta = rng.choice((-1, 1))
        plus[name] = min(p["max"], max(p["min"], round(p["value"] + c_k * delta)))
        minus[name] = min(p["max"], max(p["min"], round(p["value"] - c_k * delta)))
        steps[name] = a_k
    result, played = play(engine, plus, minus, settings, rng.getrandbits(31))
    for name, a_k in steps.items():
        p = params[name]
        # The gradient estimate divides by the perturbation actually played, which rounding
        # and the bounds make differ from c_k·Δ; where they made it vanish, nothing was measured.
        half_step = (plus[name] - minus[name]) / 2
        if half_step != 0:
            p["value"] = min(p["max"], max(p["min"], p["value"] + a_k * result / half_step))
    state["iteration"] = k
    return result, played


def save(state, path):
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as out:
        json.dump(state, out, indent=1)
        out.flush()
        os.fsync(out.fileno())
    os.replace(tmp, path)


def show(state):
    params = state["params"]
    print(f"after {state['iteration']} of {state['settings']['iterations']} iterations:")
    for name, p in params.items():
        print(f"setoption name {name} value {round(p['value'])}    (default {p['default']})")
    print("params.rs:")
    for name, p in params.items():
        print(f"    {name}: {round(p['value'])}, {p['min']}, {p['max']};")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("engine", help="a patina binary built with --features tune")
    parser.add_argument("--state", required=True, help="JSON state file (created, or resumed)")
    parser.add_argument("--iterations", type=int, default=2000)
    parser.add_argument("--pairs", type=int, default=2, help="game pairs per iteration")
    parser.add_argument("--tc", default="8+0.08")
    parser.add_argument("--hash", type=int, default=16)
    parser.add_argument("--book", default=os.environ.get("BOOK"),
                        help="EPD or PGN openings (default $BOOK, else ../shared/books/8moves_v3.pgn)")
    parser.add_argument("--params", default=None, help="comma-separated names (default: every tunable)")
    parser.add_argument("--c-end-fraction", type=float, default=0.05)
    parser.add_argument("--r-end", type=float, default=0.002)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--show", action="store_true", help="print the state's values and exit")
    args = parser.parse_args()

    engine = os.path.abspath(args.engine)
    if args.book:
        args.book = os.path.abspath(args.book)
    if os.path.exists(args.state):
        with open(args.state, encoding="utf-8") as f:
            state = json.load(f)
        print(f"resuming {args.state} at iteration {state['iteration']} (its settings, not the command line's)")
    else:
        if args.show:
            sys.exit(f"no state file {args.state}")
        state = fresh_state(engine, args)
        os.makedirs(os.path.dirname(os.path.abspath(args.state)), exist_ok=True)
        save(state, args.state)
    if args.show:
        show(state)
        return
    log_path = os.path.splitext(args.state)[0] + ".csv"
    new_log = not os.path.exists(log_path)
    with open(log_path, "a", encoding="utf-8") as log:
        if new_log:
            log.write("iteration,plus_w_minus_l,games," + ",".join(state["params"]) + "\n")
        while state["iteration"] < state["settings"]["iterations"]:
            result, played = iterate(state, engine)
            # State first: a run killed between the two repeats no iteration, it only misses a row.
            save(state, args.state)
            values = ",".join(f"{p['value']:.3f}" for p in state["params"].values())
            log.write(f"{state['iteration']},{result},{played},{values}\n")
            log.flush()
            if state["iteration"] % 10 == 0:
                print(f"iteration {state['iteration']}: " + ", ".join(
                    f"{n} {p['value']:.1f}" for n, p in state["params"].items()), flush=True)
    show(state)


if __name__ == "__main__":
    main()
