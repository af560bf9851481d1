//! The `tune` build's switches turn search techniques off (an ablation is an option value):
//! each must change the search when off, and turning it back on must restore it exactly. Depth 9:
//! singular extensions start at depth 8.
#![cfg(feature = "tune")]

use std::io::Write;
use std::process::{Command, Stdio};

/// The engine's answer to `commands`, one line each.
fn run(commands: &str) -> Vec<String> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_patina"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("the engine binary starts");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(commands.as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success());
    String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect()
}

#[test]
fn every_switch_changes_the_search_and_restores_it() {
    let switches: Vec<String> = run("uci\nquit\n")
        .iter()
        .filter_map(|line| {
            let name = line.strip_prefix("option name ")?;
            let name = name.strip_suffix(" type check default true")?;
            // Switches are named like the parameters (`lmr`); UCI's own options are not.
            name.bytes()
                .all(|b| b.is_ascii_lowercase() || b == b'_')
                .then(|| name.to_owned())
        })
        .collect();
    assert!(switches.len() >= 10, "switches: {switches:?}");

    let mut commands = String::from("bench 9\n");
    for switch in &switches {
        commands += &format!(
            "setoption name {switch} value false\nbench 9\nsetoption name {switch} value true\nbench 9\n"
        );
    }
    commands += "quit\n";
    let counts: Vec<u64> = run(&commands)
        .iter()
        .filter_map(|line| line.strip_suffix(" nps")?.split(' ').next()?.parse().ok())
        .collect();
    assert_eq!(counts.len(), 1 + 2 * switches.len());
    let full = counts[0];
    for (switch, pair) in switches.iter().zip(counts[1..].chunks(2)) {
        assert_ne!(pair[0], full, "{switch} off searched the same nodes");
        assert_eq!(pair[1], full, "{switch} back on");
    }
}
