# OpenBench contract: `make EXE=<path> [EVALFILE=<net>]` builds the engine for this CPU.
EXE ?= patina
EVALFILE ?=

.PHONY: all test clean

all:
	EVALFILE=$(EVALFILE) cargo rustc --release -p patina --bin patina -- -C target-cpu=native --emit link=$(abspath $(EXE))

test:
	cargo test --profile test-release --workspace
	python3 -m unittest discover -s scripts/tests

clean:
	cargo clean
