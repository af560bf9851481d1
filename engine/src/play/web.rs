//! `patina web`: the game in a browser, served from this process.

use std::process::ExitCode;

pub fn main(_args: &[String]) -> ExitCode {
    eprintln!("patina web: not available yet");
    ExitCode::FAILURE
}
