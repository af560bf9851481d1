//! `datagen stats`: what a set of game files holds — games, positions, results, game
//! lengths and how the scores are spread — read straight from the stored records.

use std::fmt::Write;
use std::path::PathBuf;

use clap::Parser;
use patina::score::MATE_BOUND;

use crate::gamefile::{collect_inputs, GameReader, ReadError};
use crate::progress::Counts;
use crate::record::GameResult;

#[derive(Parser, Debug)]
pub struct StatsArgs {
    /// Game files, or directories of `.vf` files.
    #[arg(required = true)]
    pub inputs: Vec<PathBuf>,
}

/// Upper bounds (exclusive) of the score buckets below the mate scores, White's view.
const BUCKET_EDGES: [i32; 10] = [-2000, -1000, -500, -200, -50, 51, 201, 501, 1001, 2001];

#[derive(Debug, Default)]
pub struct Stats {
    pub files: usize,
    pub counts: Counts,
    pub shortest: Option<usize>,
    pub longest: usize,
    /// Bytes of torn final games (from killed runs), skipped.
    pub torn_bytes: u64,
    /// Mated-White scores, then one bucket per edge and one beyond, then mating-White.
    pub score_buckets: [u64; BUCKET_EDGES.len() + 3],
}

fn bucket(score: i32) -> usize {
    if score <= -MATE_BOUND {
        0
    } else if score >= MATE_BOUND {
        BUCKET_EDGES.len() + 2
    } else {
        1 + BUCKET_EDGES.partition_point(|&edge| edge <= score)
    }
}

pub fn collect(inputs: &[PathBuf]) -> Result<Stats, ReadError> {
    let mut stats = Stats::default();
    for path in collect_inputs(inputs)? {
        stats.files += 1;
        let mut reader = GameReader::open(&path)?;
        while let Some(stored) = reader.next_game()? {
            let game = &stored.game;
            let counts = &mut stats.counts;
            counts.games += 1;
            counts.positions += game.len() as u64;
            match GameResult::from_wdl(game.outcome()) {
                GameResult::WhiteWin => counts.white_wins += 1,
                GameResult::Draw => counts.draws += 1,
                GameResult::BlackWin => counts.black_wins += 1,
            }
            stats.shortest = Some(stats.shortest.map_or(game.len(), |s| s.min(game.len())));
            stats.longest = stats.longest.max(game.len());
            for (_, score) in &game.moves {
                stats.score_buckets[bucket(score.get().into())] += 1;
            }
        }
        stats.torn_bytes += reader.torn_bytes();
    }
    Ok(stats)
}

impl Stats {
    pub fn report(&self) -> String {
        let c = &self.counts;
        let mut text = format!(
            "{} files, {} games, {} positions\n{}\n\
             game length: mean {:.1}, shortest {}, longest {} plies\n",
            self.files,
            c.games,
            c.positions,
            c.results(),
            c.positions as f64 / c.games.max(1) as f64,
            self.shortest.unwrap_or(0),
            self.longest
        );
        if self.torn_bytes > 0 {
            writeln!(
                text,
                "skipped {} bytes of torn final games (a resumed run removes them)",
                self.torn_bytes
            )
            .expect("writing to a String");
        }
        text.push_str("scores (White's view, cp):\n");
        let mut labels = vec!["mated".to_string(), format!("< {}", BUCKET_EDGES[0])];
        labels.extend(
            BUCKET_EDGES
                .windows(2)
                .map(|w| format!("{} .. {}", w[0], w[1] - 1)),
        );
        labels.push(format!(">= {}", BUCKET_EDGES[BUCKET_EDGES.len() - 1]));
        labels.push("mating".to_string());
        let most = self.score_buckets.iter().copied().max().unwrap_or(0).max(1);
        for (label, &count) in labels.iter().zip(&self.score_buckets) {
            writeln!(
                text,
                "  {label:>14} {count:>10} {:>6.2}% {}",
                100.0 * count as f64 / c.positions.max(1) as f64,
                "#".repeat((40 * count / most) as usize)
            )
            .expect("writing to a String");
        }
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_fall_in_the_right_buckets() {
        assert_eq!(bucket(-31_000), 0);
        assert_eq!(bucket(-5000), 1);
        assert_eq!(bucket(-2000), 2);
        assert_eq!(bucket(-51), 5);
        assert_eq!(bucket(-50), 6);
        assert_eq!(bucket(0), 6);
        assert_eq!(bucket(50), 6);
        assert_eq!(bucket(51), 7);
        assert_eq!(bucket(2001), 11);
        assert_eq!(bucket(31_000), 12);
    }
}
