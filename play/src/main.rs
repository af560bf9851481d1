//! `patina-play`: Patina against a person, in a terminal (`play`) or a browser (`web`).
//! `patina play` and `patina web` run this program.

use std::process::ExitCode;

use patina_play::{terminal, web};

const USAGE: &str = "\
usage: patina-play play [OPTIONS]   play Patina in the terminal (patina-play play --help)
       patina-play web [OPTIONS]    play Patina in a web page on this machine (patina-play web --help)
`patina play` and `patina web` run this program.";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let missing = patina::missing_features();
    if !missing.is_empty() {
        eprintln!(
            "patina-play: this build needs CPU features this CPU lacks ({}); \
             build it for this CPU with `cargo build --release -p patina-play`",
            missing.join(", ")
        );
        return ExitCode::FAILURE;
    }
    match args.first().map(String::as_str) {
        Some("play") => terminal::main(&args[1..]),
        Some("web") => web::main(&args[1..]),
        Some("-h" | "--help") => {
            println!("{USAGE}");
            ExitCode::SUCCESS
        }
        _ => {
            eprintln!("{USAGE}");
            ExitCode::FAILURE
        }
    }
}
