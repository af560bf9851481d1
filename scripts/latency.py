#!/usr/bin/env python3
"""How fast a search starts and stops: `go` → first `info`, and `stop` → `bestmove`.

    scripts/latency.py [PATINA_BINARY] [--threads 2] [--trials 30]

PATINA_BINARY defaults to the repository's target/release/patina.

Each trial sets up a middlegame position, sends `go infinite` and times the gap until the
first `info` line (the search threads started and depth 1 done), searches for a random
0.2-1.0 s, sends `stop` and times the gap until `bestmove` arrives (pipe round trips
included). Run it on an idle machine: on a loaded one this measures the scheduler.
"""
import argparse
import os
import random
import statistics
import subprocess
import time

# The repository's release build, wherever the script is run from.
DEFAULT_BINARY = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "target", "release", "patina")
POSITION = "position fen r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 0 9"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("patina", nargs="?", default=DEFAULT_BINARY)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--trials", type=int, default=30)
    args = parser.parse_args()
    engine = subprocess.Popen([args.patina], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)

    def send(line):
        engine.stdin.write(line + "\n")
        engine.stdin.flush()

    def read_until(prefix):
        while not (line := engine.stdout.readline()).startswith(prefix):
            if not line:
                raise SystemExit("the engine exited")

    def summary(name, latencies):
        latencies.sort()
        print(f"{name}, {args.threads} threads, {args.trials} trials: median {statistics.median(latencies):.2f} ms, "
              f"90th percentile {latencies[int(0.9 * len(latencies))]:.2f} ms, max {latencies[-1]:.2f} ms")

    send(f"setoption name Threads value {args.threads}")
    send("setoption name Hash value 64")
    rng = random.Random(1)
    starts, stops = [], []
    for _ in range(args.trials):
        send(POSITION)
        send("isready")
        read_until("readyok")
        start = time.perf_counter()
        send("go infinite")
        read_until("info depth")
        starts.append((time.perf_counter() - start) * 1000)
        time.sleep(rng.uniform(0.2, 1.0))
        start = time.perf_counter()
        send("stop")
        read_until("bestmove")
        stops.append((time.perf_counter() - start) * 1000)
    send("quit")
    engine.wait()
    summary("go → first info", starts)
    summary("stop → bestmove", stops)


if __name__ == "__main__":
    main()
