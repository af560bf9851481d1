//! UCI command lines, parsed and acted on by a fresh engine. Every `go` is stopped at once, and
//! commands whose cost the input sets (perft and bench depths, hash size, threads) are kept
//! small: what is probed is the reading of the input and the engine's reaction, not its speed.
#![no_main]

use std::sync::LazyLock;

use libfuzzer_sys::fuzz_target;
use patina::{Engine, Executed, Network, Uci};

/// The embedded net, parsed and checked once rather than for every input.
static NETWORK: LazyLock<Box<Network>> = LazyLock::new(Network::embedded);

/// Whether running `line` stays cheap enough for a fuzzing loop.
fn affordable(line: &str) -> bool {
    let words: Vec<&str> = line.split_whitespace().collect();
    let number = |i: usize| words.get(i).and_then(|w| w.parse::<u64>().ok());
    // `perft N` and `go perft N`: a deep perft runs for as long as a person asked it to.
    if let Some(at) = words.iter().position(|&w| w == "perft") {
        return number(at + 1).is_some_and(|depth| depth <= 3);
    }
    match words.first().copied() {
        Some("bench" | "genfens") => false,
        Some("setoption") => {
            let value = words
                .iter()
                .position(|&w| w == "value")
                .and_then(|i| number(i + 1));
            if line.contains("Hash") {
                value.is_none_or(|mb| mb <= 64)
            } else if line.contains("Threads") {
                value.is_none_or(|threads| threads <= 4)
            } else {
                // A net or tablebase path from the input could name any file on this machine.
                !line.contains("EvalFile") && !line.contains("SyzygyPath")
            }
        }
        _ => true,
    }
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let mut uci = Uci::new(Engine::new(NETWORK.clone()));
    for line in text.split('\n').take(64) {
        if !affordable(line) {
            continue;
        }
        if uci.execute(line) == Executed::Quit {
            return;
        }
        if line.trim_start().starts_with("go") {
            uci.execute("stop");
        }
    }
    uci.finish();
});
