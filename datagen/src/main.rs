//! `datagen`: self-play data generation and the tools around its files. See README.md.

use std::process::ExitCode;

use clap::{Parser, Subcommand};
use datagen::play;
use thiserror::Error;

#[derive(Parser)]
#[command(about = "Patina's self-play data generator")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Play self-play games into viriformat files (resumable).
    Play(play::PlayArgs),
}

#[derive(Debug, Error)]
enum Error {
    #[error(transparent)]
    Play(#[from] play::PlayError),
}

fn main() -> ExitCode {
    match run(Cli::parse().command) {
        Ok(code) => code,
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}

fn run(command: Command) -> Result<ExitCode, Error> {
    match command {
        Command::Play(args) => {
            let summary = play::run(&args)?;
            println!("{}", summary.report());
        }
    }
    Ok(ExitCode::SUCCESS)
}
