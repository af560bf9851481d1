use std::path::PathBuf;

use clap::{Parser, Subcommand};
use patina::nnue::Network;

#[derive(Parser)]
#[command(about = "Train Patina's NNUE on CPU; reads and writes what bullet does")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Write a seeded random network (generation 0 of a zero-knowledge lineage).
    Init {
        #[arg(long, default_value_t = 0)]
        seed: u64,
        #[arg(long)]
        out: PathBuf,
    },
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    match Cli::parse().command {
        Command::Init { seed, out } => {
            std::fs::write(&out, Network::random(seed).to_bytes())?;
            println!("wrote random network (seed {seed}) to {}", out.display());
        }
    }
    Ok(())
}
