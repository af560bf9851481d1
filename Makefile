# OpenBench contract: `make EXE=<path> [EVALFILE=<net>]` builds the engine for this CPU.
EXE ?= patina
# Handed to the build through the environment (empty: the net nets/DEFAULT names), which works
# whichever shell make runs recipes with, cmd.exe on Windows included.
EVALFILE ?=
export EVALFILE
# On Windows the binary is found by its .exe name.
ifeq ($(OS),Windows_NT)
override EXE := $(patsubst %.exe,%,$(EXE)).exe
endif

.PHONY: all test clean

all:
	cargo rustc --release -p patina --bin patina -- -C target-cpu=native --emit link=$(abspath $(EXE))

# The script tests run with -v: each by name, and a skipped one with its reason (a missing tool,
# package or build), so that no test is left out silently.
test:
	cargo test --profile test-release --workspace
	python3 -m unittest discover -s scripts/tests -v

clean:
	cargo clean
