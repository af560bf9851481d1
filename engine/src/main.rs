//! The `patina` binary: a UCI engine, plus `bench`, `perft`, `go` and the other commands
//! from the shell, and `play` and `web` to play it as a person.

use std::io::BufReader;
use std::process::ExitCode;

use patina::{Executed, Uci};

fn main() -> ExitCode {
    let missing = patina::missing_features();
    if !missing.is_empty() {
        // On stdout as well as in the exit code: a GUI shows the engine's output, not its stderr.
        println!(
            "info string error: this build of patina needs CPU features this CPU lacks ({}); \
             use a build for an older x86-64 level, or build for this CPU with `make`",
            missing.join(", ")
        );
        return ExitCode::FAILURE;
    }
    if let Some(warning) = patina::slow_sliders_warning() {
        println!("info string warning: {warning}");
    }
    let args: Vec<String> = std::env::args().skip(1).collect();
    if matches!(args.as_slice(), [flag] if flag == "--version" || flag == "-V") {
        println!("{}", patina::NAME);
        return ExitCode::SUCCESS;
    }
    match args.first().map(String::as_str) {
        Some("play") => return patina::play::terminal::main(&args[1..]),
        Some("web") => return patina::play::web::main(&args[1..]),
        _ => {}
    }
    let mut uci = Uci::default();
    if args.is_empty() {
        uci.run(BufReader::new(std::io::stdin()));
        return ExitCode::SUCCESS;
    }
    let mut failed = false;
    for line in command_lines(&args) {
        match uci.execute(&line) {
            Executed::Done => {}
            Executed::Quit => break,
            // The rest would run on the wrong net, position or settings.
            Executed::Failed => {
                failed = true;
                break;
            }
        }
    }
    uci.finish();
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

/// The UCI lines the arguments stand for. OpenBench passes one command per argument
/// (`patina "setoption name EvalFile value x.nnue" bench`); a shell user types one command as
/// words (`patina bench 13`), and `perft N FEN…` sets the position first.
fn command_lines(args: &[String]) -> Vec<String> {
    match args.first().map(String::as_str) {
        Some("perft") if args.len() > 2 => vec![
            format!("position fen {}", args[2..].join(" ")),
            format!("perft {}", args[1]),
        ],
        _ if args.iter().any(|arg| arg.contains(char::is_whitespace)) => args.to_vec(),
        _ => vec![args.join(" ")],
    }
}
