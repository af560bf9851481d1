#!/usr/bin/env python3
"""How long `stop` takes to bring back `bestmove` from a `go infinite`, with every search thread.

    scripts/stop-latency.py [PATINA_BINARY] [--threads 2] [--trials 30]

Each trial sets up a middlegame position, searches for a random 0.2-1.0 s, sends `stop` and
times the gap until `bestmove` arrives (pipe round trip included). Run it on an idle machine:
on a loaded one this measures the scheduler.
"""
import argparse
import random
import statistics
import subprocess
import time

POSITION = "position fen r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 0 9"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("patina", nargs="?", default="target/release/patina")
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

    send(f"setoption name Threads value {args.threads}")
    send("setoption name Hash value 64")
    rng = random.Random(1)
    latencies = []
    for _ in range(args.trials):
        send(POSITION)
        send("isready")
        read_until("readyok")
        send("go infinite")
        time.sleep(rng.uniform(0.2, 1.0))
        start = time.perf_counter()
        send("stop")
        read_until("bestmove")
        latencies.append((time.perf_counter() - start) * 1000)
    send("quit")
    engine.wait()
    latencies.sort()
    print(f"stop → bestmove, {args.threads} threads, {args.trials} trials: median {statistics.median(latencies):.2f} ms, "
          f"90th percentile {latencies[int(0.9 * len(latencies))]:.2f} ms, max {latencies[-1]:.2f} ms")


if __name__ == "__main__":
    main()
