//! `datagen wdl-fit`: fits the engine's win-draw-loss model (`patina::wdl`) to games by maximum
//! likelihood and prints the constants to paste into engine/src/wdl.rs. Each scored position
//! gives its search score and material, and the game's result says which of win, draw and loss
//! happened; all three are White's view, which the model's symmetry allows. The games are
//! self-play files, or match PGNs whose move comments carry one player's scores (an SPRT's
//! games give the candidate's, with no games played for the fit). Every `holdout`-th game is
//! held back to score the fit against a constant guess. The fit is then checked where a GUI
//! user first reads it, at the start of a game: the model's mean W/D/L at each game's first
//! scored position against the results.

use std::fmt::Write;
use std::path::{Path, PathBuf};

use clap::Parser;
use patina::pgn::{parse_games, PgnGame};
use patina::score::Score;
use patina::wdl::{self, material, WdlModel, NORMALIZE_TO_PAWN, REFERENCE_MATERIAL};
use patina::Color;
use thiserror::Error;

use crate::gamefile::{collect_inputs, GameReader, ReadError};
use crate::pgn::parse_score;
use crate::record::{from_viri_move, GameResult};

#[derive(Parser, Debug)]
pub struct WdlFitArgs {
    /// Game files, or directories of `.vf` files; `.pgn` files are read as match games with
    /// engine scores in their move comments (`{+0.35/12 0.123s}`).
    #[arg(required = true)]
    pub inputs: Vec<PathBuf>,
    /// Hold back every Nth game (in reading order) for validation.
    #[arg(long, default_value_t = 5)]
    pub holdout: u64,
    /// Skip positions whose |score| reaches this: mates and runaway scores, where the result
    /// is settled, say nothing about where the curve bends.
    #[arg(long, default_value_t = 4000)]
    pub max_score: i32,
    /// In PGNs, only the positions this player moved from (its `White` or `Black` tag, e.g.
    /// `new` in the games of scripts/match.sh), scored by its own comments; by default every
    /// scored move. Give it unless both players are the same engine with the same net.
    #[arg(long)]
    pub player: Option<String>,
    /// Network units to the pawn of the engine whose PGN scores are read (they are printed
    /// centipawns): by default the embedded net's, as for `pgn-to-vf`.
    #[arg(long, default_value_t = NORMALIZE_TO_PAWN, value_parser = clap::value_parser!(i32).range(1..=1000))]
    pub pawn_units: Score,
}

#[derive(Debug, Error)]
pub enum WdlFitError {
    #[error(transparent)]
    Read(#[from] ReadError),
    #[error("{path}: {source}")]
    Pgn {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("no positions to fit on ({games} games read for training): give more games")]
    NoSamples { games: u64 },
}

#[derive(Clone, Copy, Debug)]
pub struct Sample {
    pub score: f64,
    pub material: i32,
    /// 0 win, 1 draw, 2 loss.
    pub outcome: usize,
}

#[derive(Debug, Default)]
pub struct Samples {
    pub games: u64,
    pub samples: Vec<Sample>,
    /// Each game's first position in `samples`, if it has one.
    pub starts: Vec<Sample>,
}

impl Samples {
    fn add_game(&mut self, samples: Vec<Sample>) {
        self.games += 1;
        self.starts.extend(samples.first());
        self.samples.extend(samples);
    }
}

/// Reads every position of every game, split into (training, validation), and counts the PGN
/// games skipped as unreadable or unfinished.
pub fn read(args: &WdlFitArgs) -> Result<(Samples, Samples, u64), WdlFitError> {
    let (mut train, mut validation) = (Samples::default(), Samples::default());
    let mut index = 0;
    let mut skipped = 0;
    let mut add = |samples| {
        index += 1;
        if args.holdout > 0 && index % args.holdout == 0 {
            validation.add_game(samples);
        } else {
            train.add_game(samples);
        }
    };
    for path in collect_inputs(&args.inputs)? {
        if path.extension().is_some_and(|e| e == "pgn") {
            for game in read_pgn(&path)? {
                match game.ok().and_then(|game| pgn_samples(&game, args)) {
                    Some(samples) => add(samples),
                    None => skipped += 1,
                }
            }
            continue;
        }
        let mut reader = GameReader::open(&path)?;
        while let Some(stored) = reader.next_game()? {
            let outcome = outcome_index(GameResult::from_wdl(stored.game.outcome()));
            let mut board = stored.start;
            let mut samples = Vec::new();
            for (viri_move, score) in &stored.game.moves {
                let score = i32::from(score.get());
                if score.abs() < args.max_score {
                    samples.push(Sample {
                        score: f64::from(score),
                        material: material(&board),
                        outcome,
                    });
                }
                // The reader has proven every move legal.
                let mv = from_viri_move(&board, *viri_move).expect("a legal move");
                board.make_move(mv);
            }
            add(samples);
        }
    }
    Ok((train, validation, skipped))
}

/// `Sample::outcome` of a game's result.
fn outcome_index(result: GameResult) -> usize {
    match result {
        GameResult::WhiteWin => 0,
        GameResult::Draw => 1,
        GameResult::BlackWin => 2,
    }
}

fn read_pgn(path: &Path) -> Result<Vec<Result<PgnGame, String>>, WdlFitError> {
    let text = patina::read_text(path).map_err(|source| WdlFitError::Pgn {
        path: path.to_owned(),
        source,
    })?;
    Ok(parse_games(&text).collect())
}

/// The scored positions of a finished PGN game that `args.player` (or anyone) moved from, in
/// White's view and the network's units; None for a game without a result.
fn pgn_samples(game: &PgnGame, args: &WdlFitArgs) -> Option<Vec<Sample>> {
    let outcome = outcome_index(GameResult::from_pgn(&game.result)?);
    let mut board = game.start.clone();
    let mut samples = Vec::new();
    for (mv, comment) in &game.moves {
        let mover = board.side_to_move();
        let counted = args
            .player
            .as_ref()
            .is_none_or(|player| game.players[mover.index()].as_ref() == Some(player));
        if let Some(cp) = comment.as_deref().and_then(parse_score).filter(|_| counted) {
            let score = wdl::from_cp(cp, args.pawn_units);
            let white = if mover == Color::White { score } else { -score };
            if white.abs() < args.max_score {
                samples.push(Sample {
                    score: f64::from(white),
                    material: material(&board),
                    outcome,
                });
            }
        }
        board.make_move(*mv);
    }
    Some(samples)
}

const PARAMS: usize = 8;

fn model_of(theta: &[f64; PARAMS]) -> WdlModel {
    WdlModel {
        a: theta[..4].try_into().expect("4 coefficients"),
        b: theta[4..].try_into().expect("4 coefficients"),
    }
}

/// Probabilities this small (a model far off, early in the fit) count as this.
const FLOOR: f64 = 1e-15;

/// Mean negative log-likelihood and its gradient in the 8 coefficients.
fn loss_and_gradient(samples: &[Sample], theta: &[f64; PARAMS]) -> (f64, [f64; PARAMS]) {
    let model = model_of(theta);
    let (mut loss, mut gradient) = (0.0, [0.0; PARAMS]);
    for s in samples {
        let (a, b) = model.params(s.material);
        let p = model.probabilities(s.score, s.material);
        let (win, lose) = (p[0], p[2]);
        let (u, v) = ((s.score - a) / b, (-s.score - a) / b);
        // dP/da and dP/db for the win and loss curves; a draw takes what is left.
        let (win_a, win_b) = (-win * (1.0 - win) / b, -win * (1.0 - win) * u / b);
        let (lose_a, lose_b) = (-lose * (1.0 - lose) / b, -lose * (1.0 - lose) * v / b);
        let (p_a, p_b) = match s.outcome {
            0 => (win_a, win_b),
            2 => (lose_a, lose_b),
            _ => (-win_a - lose_a, -win_b - lose_b),
        };
        let py = p[s.outcome];
        loss -= py.max(FLOOR).ln();
        if py < FLOOR {
            // The floor is flat: the loss this sample adds does not move with the model.
            continue;
        }
        let m = WdlModel::scaled_material(s.material);
        let powers = [m * m * m, m * m, m, 1.0];
        for k in 0..4 {
            gradient[k] -= p_a / py * powers[k];
            gradient[4 + k] -= p_b / py * powers[k];
        }
    }
    let n = samples.len().max(1) as f64;
    (loss / n, gradient.map(|g| g / n))
}

/// Solves `m x = y` by Gaussian elimination with partial pivoting.
fn solve(mut m: [[f64; PARAMS]; PARAMS], mut y: [f64; PARAMS]) -> [f64; PARAMS] {
    for col in 0..PARAMS {
        let pivot = (col..PARAMS)
            .max_by(|&i, &j| m[i][col].abs().total_cmp(&m[j][col].abs()))
            .expect("rows left");
        m.swap(col, pivot);
        y.swap(col, pivot);
        let (pivot_row, pivot_y) = (m[col], y[col]);
        for row in col + 1..PARAMS {
            let f = m[row][col] / pivot_row[col];
            for (x, p) in m[row][col..].iter_mut().zip(&pivot_row[col..]) {
                *x -= f * p;
            }
            y[row] -= f * pivot_y;
        }
    }
    let mut x = [0.0; PARAMS];
    for row in (0..PARAMS).rev() {
        let rest: f64 = (row + 1..PARAMS).map(|k| m[row][k] * x[k]).sum();
        x[row] = (y[row] - rest) / m[row][row];
    }
    x
}

/// Maximum likelihood by damped Newton steps (Levenberg–Marquardt), the Hessian taken by
/// differencing the exact gradient; from a flat curve of plausible centre and width.
pub fn fit(samples: &[Sample]) -> (WdlModel, f64) {
    let mut theta = [0.0, 0.0, 0.0, 200.0, 0.0, 0.0, 0.0, 100.0];
    let (mut loss, mut gradient) = loss_and_gradient(samples, &theta);
    let mut damping = 1e-3;
    for _ in 0..200 {
        let mut hessian = [[0.0; PARAMS]; PARAMS];
        for j in 0..PARAMS {
            let h = 1e-4 * theta[j].abs().max(1.0);
            let (mut up, mut down) = (theta, theta);
            up[j] += h;
            down[j] -= h;
            let (g_up, g_down) = (
                loss_and_gradient(samples, &up).1,
                loss_and_gradient(samples, &down).1,
            );
            for i in 0..PARAMS {
                hessian[i][j] = (g_up[i] - g_down[i]) / (2.0 * h);
            }
        }
        let mut improved = false;
        while damping < 1e12 {
            let mut damped = hessian;
            for i in 0..PARAMS {
                for j in 0..i {
                    let mean = (hessian[i][j] + hessian[j][i]) / 2.0;
                    (damped[i][j], damped[j][i]) = (mean, mean);
                }
                // Marquardt's damping on |H_ii|: a negative curvature (the log-loss is not
                // convex everywhere) grows positive as the damping grows, so a heavily damped
                // step turns into gradient descent instead of climbing.
                damped[i][i] = hessian[i][i] + damping * hessian[i][i].abs() + 1e-12;
            }
            let step = solve(damped, gradient.map(|g| -g));
            let mut next = theta;
            for (x, dx) in next.iter_mut().zip(step) {
                *x += dx;
            }
            let (next_loss, next_gradient) = loss_and_gradient(samples, &next);
            if next_loss.is_finite() && next_loss < loss {
                let gain = loss - next_loss;
                (theta, loss, gradient) = (next, next_loss, next_gradient);
                damping = (damping / 4.0).max(1e-9);
                improved = gain > 1e-12;
                break;
            }
            damping *= 8.0;
        }
        if !improved {
            break;
        }
    }
    (model_of(&theta), loss)
}

/// Mean log-loss and Brier score (summed over the three outcomes) of a predictor.
pub fn score_predictions(samples: &[Sample], predict: impl Fn(&Sample) -> [f64; 3]) -> (f64, f64) {
    let (mut log_loss, mut brier) = (0.0, 0.0);
    for s in samples {
        let p = predict(s);
        log_loss -= p[s.outcome].max(FLOOR).ln();
        brier += (0..3)
            .map(|k| (p[k] - f64::from(u8::from(k == s.outcome))).powi(2))
            .sum::<f64>();
    }
    let n = samples.len().max(1) as f64;
    (log_loss / n, brier / n)
}

/// The model's mean W/D/L over `samples` and the outcomes' frequencies, in per cent.
pub fn calibration(samples: &[Sample], model: &WdlModel) -> ([f64; 3], [f64; 3]) {
    let (mut predicted, mut observed) = ([0.0; 3], [0.0; 3]);
    for s in samples {
        let p = model.probabilities(s.score, s.material);
        for k in 0..3 {
            predicted[k] += p[k];
        }
        observed[s.outcome] += 1.0;
    }
    let per_cent = 100.0 / samples.len().max(1) as f64;
    (
        predicted.map(|p| p * per_cent),
        observed.map(|o| o * per_cent),
    )
}

pub fn run(args: &WdlFitArgs) -> Result<String, WdlFitError> {
    let (train, validation, skipped) = read(args)?;
    if train.samples.is_empty() {
        return Err(WdlFitError::NoSamples { games: train.games });
    }
    let (model, train_loss) = fit(&train.samples);
    let mut frequencies = [0.0; 3];
    for s in &train.samples {
        frequencies[s.outcome] += 1.0;
    }
    let constant = frequencies.map(|f| f / train.samples.len().max(1) as f64);
    let (model_log, model_brier) = score_predictions(&validation.samples, |s| {
        model.probabilities(s.score, s.material)
    });
    let (constant_log, constant_brier) = score_predictions(&validation.samples, |_| constant);
    let (a, b) = model.params(REFERENCE_MATERIAL);
    let mut text = String::new();
    let mut line = |s: String| writeln!(text, "{s}").expect("writing to a String");
    line(format!(
        "training: {} games, {} positions (|score| < {}); validation: {} games, {} positions",
        train.games,
        train.samples.len(),
        args.max_score,
        validation.games,
        validation.samples.len()
    ));
    if skipped > 0 {
        line(format!(
            "{skipped} PGN games skipped: unreadable, or without a result"
        ));
    }
    line(format!("training log-loss {train_loss:.4}"));
    let [win, draw, loss] = constant.map(|p| p * 100.0);
    if validation.samples.is_empty() {
        line("no validation positions (--holdout 0, or too few games)".into());
    } else {
        line(format!(
            "validation log-loss {model_log:.4} (constant W/D/L {win:.0}/{draw:.0}/{loss:.0} %: \
             {constant_log:.4}), Brier {model_brier:.4} (constant {constant_brier:.4})"
        ));
    }
    // Game starts of all games: one position a game, too few to hold back a fifth of.
    let starts = [&train.starts[..], &validation.starts[..]].concat();
    let level: Vec<Sample> = starts
        .iter()
        .filter(|s| s.score.abs() <= a / 2.0)
        .copied()
        .collect();
    let triple = |p: [f64; 3]| format!("{:.1}/{:.1}/{:.1} %", p[0], p[1], p[2]);
    for (what, set) in [("all game starts", &starts), ("within ±50 cp", &level)] {
        let (predicted, observed) = calibration(set, &model);
        line(format!(
            "{what} ({} games): model W/D/L {}, results {}",
            set.len(),
            triple(predicted),
            triple(observed)
        ));
    }
    for m in [20, 30, 40, 58, 78] {
        let (a, b) = model.params(m);
        line(format!("material {m}: a = {a:.1}, b = {b:.1}"));
    }
    line(format!(
        "at material {REFERENCE_MATERIAL}: a = {a:.2}, b = {b:.2}; paste into engine/src/wdl.rs:"
    ));
    let coefficients = |c: [f64; 4]| c.map(|x| format!("{x:.6}")).join(", ");
    line(format!(
        "pub const MODEL: WdlModel = WdlModel {{\n    a: [{}],\n    b: [{}],\n}};",
        coefficients(model.a),
        coefficients(model.b)
    ));
    line(format!(
        "pub const NORMALIZE_TO_PAWN: Score = {};",
        a.round() as i32
    ));
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_games_is_an_error_not_a_fit() {
        let dir = tempfile::tempdir().unwrap();
        let empty = dir.path().join("empty.vf");
        std::fs::write(&empty, b"").unwrap();
        let args = WdlFitArgs::parse_from(["wdl-fit", empty.to_str().unwrap()]);
        assert!(matches!(
            run(&args),
            Err(WdlFitError::NoSamples { games: 0 })
        ));
    }

    /// From a match PGN, `--player` keeps the positions that player moved from, scored by its
    /// own comments: book moves and other players' scores are left out, a score is turned to
    /// White's view and to network units by `--pawn-units`, mates are dropped, and a game
    /// without a result is skipped and counted.
    #[test]
    fn a_match_pgn_gives_one_players_positions() {
        let dir = tempfile::tempdir().unwrap();
        let pgn = dir.path().join("games.pgn");
        std::fs::write(
            &pgn,
            r#"[White "new"]
[Black "base"]
[Result "0-1"]

1. e4 {book} e5 {book} 2. Nf3 {+0.20/12 0.1s} Nc6 {-0.50/12 0.1s} 3. Bb5 {-1.00/11 0.1s}
a6 {+M3/20 0.1s} 0-1

[White "base"]
[Black "new"]
[Result "1/2-1/2"]

1. d4 {+0.10/10 0.1s} d5 {+0.40/10 0.1s} 1/2-1/2

[White "new"]
[Black "base"]
[Result "*"]

1. c4 {+0.10/10 0.1s} *
"#,
        )
        .unwrap();
        let path = pgn.to_str().unwrap();
        let read_with = |extra: &[&str]| {
            let args = WdlFitArgs::parse_from(
                [
                    &["wdl-fit", "--holdout", "0", "--pawn-units", "300"],
                    extra,
                    &[path],
                ]
                .concat(),
            );
            let (train, validation, skipped) = read(&args).unwrap();
            assert_eq!((train.games, validation.games, skipped), (2, 0, 1));
            train
                .samples
                .iter()
                .map(|s| (s.score, s.outcome))
                .collect::<Vec<_>>()
        };
        // new: White's 2.Nf3 (+60) and 3.Bb5 (-300) in a loss, Black's 1...d5 (+0.40 for
        // Black: -120) in a draw.
        assert_eq!(
            read_with(&["--player", "new"]),
            [(60.0, 2), (-300.0, 2), (-120.0, 1)]
        );
        // Everyone: base's 2...Nc6 (-0.50 for Black: +150) and 1.d4 (+30) too; base's mate
        // score is left out.
        assert_eq!(
            read_with(&[]),
            [(60.0, 2), (150.0, 2), (-300.0, 2), (30.0, 1), (-120.0, 1)]
        );
    }

    const TRUTH: WdlModel = WdlModel {
        a: [-40.0, 90.0, -60.0, 250.0],
        b: [10.0, -20.0, 30.0, 90.0],
    };

    /// `count` outcomes drawn (deterministically) from `truth` over a spread of scores and
    /// materials.
    fn samples_of(truth: &WdlModel, count: i32) -> Vec<Sample> {
        let mut samples = Vec::new();
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        for i in 0..count {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let uniform = (state >> 11) as f64 / (1u64 << 53) as f64;
            let material = 17 + (i % 62);
            let score = f64::from((i * 37 % 1601) - 800);
            let p = truth.probabilities(score, material);
            let outcome = if uniform < p[0] {
                0
            } else if uniform < p[0] + p[1] {
                1
            } else {
                2
            };
            samples.push(Sample {
                score,
                material,
                outcome,
            });
        }
        samples
    }

    /// Away from the optimum, each component of the gradient is the loss's slope along it.
    #[test]
    fn the_gradient_matches_finite_differences() {
        let samples = samples_of(&TRUTH, 5000);
        let theta = [-10.0, 40.0, 20.0, 180.0, 5.0, -5.0, 20.0, 120.0];
        let (_, gradient) = loss_and_gradient(&samples, &theta);
        for k in 0..PARAMS {
            let h = 1e-3;
            let (mut up, mut down) = (theta, theta);
            up[k] += h;
            down[k] -= h;
            let slope = (loss_and_gradient(&samples, &up).0 - loss_and_gradient(&samples, &down).0)
                / (2.0 * h);
            let tolerance = 1e-4 * slope.abs().max(1e-3);
            assert!(
                (gradient[k] - slope).abs() < tolerance,
                "coefficient {k}: gradient {} vs slope {slope}",
                gradient[k]
            );
        }
    }

    /// Outcomes drawn from a model match its mean prediction; a model that draws more does not.
    #[test]
    fn calibration_compares_prediction_and_results() {
        let samples = samples_of(&TRUTH, 20_000);
        let (predicted, observed) = calibration(&samples, &TRUTH);
        for k in 0..3 {
            assert!(
                (predicted[k] - observed[k]).abs() < 1.5,
                "{predicted:?} {observed:?}"
            );
        }
        assert!((predicted.iter().sum::<f64>() - 100.0).abs() < 1e-9);
        let drawish = WdlModel {
            a: [TRUTH.a[0], TRUTH.a[1], TRUTH.a[2], 2.0 * TRUTH.a[3]],
            ..TRUTH
        };
        let (predicted, observed) = calibration(&samples, &drawish);
        assert!(
            predicted[1] > observed[1] + 5.0,
            "{predicted:?} {observed:?}"
        );
    }

    /// Outcomes drawn from a known model are fitted back to it.
    #[test]
    fn recovers_the_model_that_made_the_data() {
        let (fitted, _) = fit(&samples_of(&TRUTH, 60_000));
        for m in [20, 40, 58, 78] {
            let (a, b) = (TRUTH.params(m), fitted.params(m));
            assert!((a.0 - b.0).abs() < 10.0, "a at {m}: {} vs {}", a.0, b.0);
            assert!((a.1 - b.1).abs() < 10.0, "b at {m}: {} vs {}", a.1, b.1);
        }
    }
}
