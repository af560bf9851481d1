//! `datagen`: self-play data generation and the tools around its files. See docs/datagen.md.

use std::process::ExitCode;

use clap::{Parser, Subcommand};
use datagen::{gamefile, pgn, play, splat, stats, validate, wdl_fit};
use thiserror::Error;

#[derive(Parser)]
#[command(version, about = "Patina's self-play data generator")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Play self-play games into viriformat files (resumable).
    Play(play::PlayArgs),
    /// Turn game files into bulletformat training records.
    Splat(splat::SplatArgs),
    /// Count games, positions, results and scores in game files.
    Stats(stats::StatsArgs),
    /// Replay every game, checking moves, endings and results.
    Validate(validate::ValidateArgs),
    /// Convert match PGNs with engine scores in comments to viriformat.
    PgnToVf(pgn::PgnArgs),
    /// Fit the engine's win-draw-loss model (normalised scores, UCI_ShowWDL) to games.
    WdlFit(wdl_fit::WdlFitArgs),
}

#[derive(Debug, Error)]
enum Error {
    #[error(transparent)]
    Play(#[from] play::PlayError),
    #[error(transparent)]
    Splat(#[from] splat::SplatError),
    #[error(transparent)]
    Read(#[from] gamefile::ReadError),
    #[error(transparent)]
    Pgn(#[from] pgn::PgnError),
    #[error(transparent)]
    WdlFit(#[from] wdl_fit::WdlFitError),
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
        Command::Splat(args) => {
            let summary = splat::run(&args)?;
            println!(
                "{} games, {} positions read; {} records written to {}",
                summary.games,
                summary.positions,
                summary.written,
                args.out.display()
            );
        }
        Command::Stats(args) => {
            let stats = stats::collect(&args.inputs)?;
            print!("{}", stats.report());
        }
        Command::Validate(args) => {
            let report = validate::run(&args.inputs)?;
            println!("{}", report.report());
            if report.errors > 0 {
                return Ok(ExitCode::FAILURE);
            }
        }
        Command::PgnToVf(args) => {
            let summary = pgn::run(&args)?;
            println!(
                "{} games, {} positions written to {}; skipped {} unfinished, {} with unscored moves, {} unreadable",
                summary.games,
                summary.positions,
                args.out.display(),
                summary.unfinished,
                summary.unscored,
                summary.unreadable
            );
            if let Some(first) = &summary.first_unreadable {
                println!("first unreadable: {first}");
            }
        }
        Command::WdlFit(args) => print!("{}", wdl_fit::run(&args)?),
    }
    Ok(ExitCode::SUCCESS)
}
