//! The UCI front end: reads commands, drives the `Engine`, prints what the protocol asks for.
//! Bad input is answered with `info string error: …` and the engine keeps its last good state.

pub mod command;

use std::io::{BufRead, Write};
use std::path::Path;
use std::time::Duration;

use command::{Command, GoCommand, ParseError};

use crate::cpu::SLIDERS;
use crate::engine::{Engine, DEFAULT_HASH_MB, MAX_HASH_MB, MAX_THREADS};
use crate::search::strength::{self, Strength};
use crate::search::{Reporter, ScoreBound, SearchInfo, SearchResult, DEFAULT_MOVE_OVERHEAD};
use crate::tools::{bench, genfens, nnbench, perft};
use crate::types::score::DRAW;
use crate::wdl;

/// The engine's name and version, as `id name` and `--version` give it.
pub const NAME: &str = concat!("Patina ", env!("CARGO_PKG_VERSION"));

/// Prints search progress as UCI `info` lines.
struct UciReporter {
    chess960: bool,
    /// The root's material for `wdl W D L`, when UCI_ShowWDL asks for it.
    wdl_material: Option<i32>,
}

impl UciReporter {
    /// The `info` line for `info`: a bound follows the score it qualifies, before `wdl`, as
    /// GUIs and python-chess read it.
    fn info_line(&self, info: &SearchInfo) -> String {
        // A tablebase score is exact, whatever window the search used.
        let bound = match info.bound {
            _ if info.tablebase => "",
            ScoreBound::Exact => "",
            ScoreBound::Lower => " lowerbound",
            ScoreBound::Upper => " upperbound",
        };
        let ms = info.elapsed.as_millis().max(1);
        let pv: Vec<String> = info.pv.iter().map(|mv| mv.to_uci(self.chess960)).collect();
        let wdl = self.wdl_material.map_or(String::new(), |material| {
            wdl_field(if info.tablebase {
                wdl::certain(info.score)
            } else {
                wdl::wdl(info.score, material)
            })
        });
        format!(
            "info depth {} seldepth {} multipv {} score {}{bound}{wdl} nodes {} nps {} hashfull {} tbhits {} time {} pv {}",
            info.depth,
            info.seldepth,
            info.multipv,
            wdl::to_uci(info.score),
            info.nodes,
            info.nodes as u128 * 1000 / ms,
            info.hashfull,
            info.tbhits,
            info.elapsed.as_millis(),
            pv.join(" ")
        )
    }
}

impl Reporter for UciReporter {
    fn report(&mut self, info: &SearchInfo) {
        println!("{}", self.info_line(info));
    }

    fn warn(&mut self, message: &str) {
        println!("info string {message}");
    }
}

/// ` wdl W D L`, as an `info` line carries it.
fn wdl_field([w, d, l]: [u32; 3]) -> String {
    format!(" wdl {w} {d} {l}")
}

fn print_bestmove(result: &SearchResult, chess960: bool, show_wdl: bool) {
    match (result.best_move, result.ponder_move) {
        (Some(best), Some(ponder)) => println!(
            "bestmove {} ponder {}",
            best.to_uci(chess960),
            ponder.to_uci(chess960)
        ),
        (Some(best), None) => println!("bestmove {}", best.to_uci(chess960)),
        (None, _) => {
            // Mated or stalemated: `mate 0` or `cp 0`, as Stockfish says, so a GUI has a score.
            let score = if result.score == DRAW {
                "cp 0"
            } else {
                "mate 0"
            };
            let wdl = if show_wdl {
                wdl_field(wdl::certain(result.score))
            } else {
                String::new()
            };
            println!("info depth 0 score {score}{wdl}");
            println!("bestmove 0000");
        }
    }
    let _ = std::io::stdout().flush();
}

/// What a line of input did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Executed {
    Done,
    /// Refused or failed, with an `info string error` printed.
    Failed,
    Quit,
}

/// The options that set a limited strength, as a GUI sends them one at a time.
#[derive(Clone, Copy, Debug)]
struct StrengthOptions {
    limit: bool,
    elo: u32,
    skill_level: u32,
}

impl Default for StrengthOptions {
    fn default() -> Self {
        Self {
            limit: false,
            elo: strength::MAX_ELO,
            skill_level: strength::MAX_SKILL_LEVEL,
        }
    }
}

impl StrengthOptions {
    /// `UCI_LimitStrength` with `UCI_Elo` wins over `Skill Level`, as in Stockfish.
    fn strength(&self) -> Option<Strength> {
        if self.limit {
            Some(Strength::from_elo(self.elo))
        } else {
            Strength::from_skill_level(self.skill_level)
        }
    }
}

#[derive(Default)]
pub struct Uci {
    engine: Engine,
    show_wdl: bool,
    strength: StrengthOptions,
}

impl Uci {
    /// A session that drives `engine` with its net and options as they are.
    pub fn new(engine: Engine) -> Self {
        Self {
            engine,
            show_wdl: false,
            strength: StrengthOptions::default(),
        }
    }

    /// Runs until `quit` or the end of input; see `finish` for a search still running then.
    pub fn run(&mut self, input: impl BufRead) {
        // A line that is not UTF-8 (a path in a GUI's legacy code page) is read lossily rather
        // than ending the session; only the end of input or a read error does.
        for line in input.split(b'\n') {
            let Ok(line) = line else { break };
            if self.execute(&String::from_utf8_lossy(&line)) == Executed::Quit {
                self.engine.stop();
                self.engine.wait();
                return;
            }
        }
        self.finish();
    }

    /// No command can follow: a search that ends by itself still answers, one that would not
    /// (`go infinite`, an unanswered `go ponder`) is stopped and answers now.
    pub fn finish(&mut self) {
        self.engine.finish();
    }

    /// Executes one line. An error is reported as `info string error` and the engine keeps
    /// its last good state.
    pub fn execute(&mut self, line: &str) -> Executed {
        let chess960 = self.engine.options().chess960;
        match command::parse(line, chess960) {
            Ok(None) => Executed::Done,
            Ok(Some(Command::Quit)) => Executed::Quit,
            Ok(Some(command)) => match self.apply(command) {
                Ok(()) => Executed::Done,
                Err(message) => {
                    println!("info string error: {message}");
                    Executed::Failed
                }
            },
            Err(error) => {
                println!("info string error: {error}");
                Executed::Failed
            }
        }
    }

    /// Commands that need the engine idle first let a running search end: one with a limit
    /// finishes and answers (as in Stockfish, so a script may send `go depth 8` and then `d`),
    /// one that only `stop` would end is stopped.
    fn apply(&mut self, command: Command) -> Result<(), String> {
        let needs_idle = !matches!(
            command,
            Command::IsReady | Command::Stop | Command::PonderHit | Command::Uci
        );
        if needs_idle && self.engine.is_searching() {
            self.engine.finish();
        }
        match command {
            Command::Uci => self.print_id(),
            Command::IsReady => println!("readyok"),
            Command::NewGame => self.engine.clear(),
            Command::SetOption { name, value } => self.set_option(&name, value.as_deref())?,
            Command::Position(board) => self.engine.set_board(board),
            Command::Go(go) => self.go(go),
            Command::Stop => self.engine.stop(),
            Command::PonderHit => self.engine.ponderhit(),
            Command::Quit => unreachable!("handled by execute"),
            Command::Bench { depth, nn } => self.bench(depth, nn),
            Command::Perft(depth) => self.perft(depth),
            Command::Eval => {
                let eval = self.engine.static_eval();
                let white = if self.engine.board().side_to_move() == crate::types::Color::White {
                    eval
                } else {
                    -eval
                };
                println!(
                    "NNUE evaluation: {} cp (side to move), {} cp (White)",
                    wdl::to_cp(eval),
                    wdl::to_cp(white)
                );
            }
            Command::Display => self.display(),
            Command::Probe => match self.engine.probe_tablebases()? {
                Some((wdl, dtz)) => {
                    let dtz = dtz.map_or("none".to_owned(), |dtz| dtz.to_string());
                    println!("info string tablebase wdl {} dtz {dtz}", wdl as i32);
                }
                None => println!("info string tablebase none"),
            },
            Command::GenFens(request) => {
                // The trial searches run on an engine of their own with the same net, one
                // thread and a fresh hash: the openings then depend on the seed alone, not on
                // `Threads`, `Hash` or `MultiPV`, and the game's position and hash stay.
                let mut trials = Engine::new(Box::new(self.engine.network().clone()));
                trials.set_chess960(self.engine.options().chess960);
                genfens::generate(&mut trials, &request, |fen| {
                    println!("info string genfens {fen}");
                })
                .map_err(|e| e.to_string())?;
            }
        }
        let _ = std::io::stdout().flush();
        Ok(())
    }

    fn print_id(&self) {
        println!("id name {NAME}");
        println!("id author the Patina developers");
        println!("option name Hash type spin default {DEFAULT_HASH_MB} min 1 max {MAX_HASH_MB}");
        println!("option name Threads type spin default 1 min 1 max {MAX_THREADS}");
        println!("option name MultiPV type spin default 1 min 1 max 256");
        println!(
            "option name Move Overhead type spin default {} min 0 max 5000",
            DEFAULT_MOVE_OVERHEAD.as_millis()
        );
        println!("option name Ponder type check default false");
        println!("option name UCI_Chess960 type check default false");
        println!("option name UCI_ShowWDL type check default false");
        println!(
            "option name Skill Level type spin default {0} min 0 max {0}",
            strength::MAX_SKILL_LEVEL
        );
        println!("option name UCI_LimitStrength type check default false");
        println!(
            "option name UCI_Elo type spin default {1} min {0} max {1}",
            strength::MIN_ELO,
            strength::MAX_ELO
        );
        println!("option name EvalFile type string default <embedded>");
        println!("option name Clear Hash type button");
        println!("option name SyzygyPath type string default <empty>");
        println!("option name SyzygyProbeDepth type spin default 1 min 1 max 100");
        println!("option name SyzygyProbeLimit type spin default 7 min 0 max 7");
        println!("option name Syzygy50MoveRule type check default true");
        #[cfg(feature = "tune")]
        for (name, value, min, max) in crate::search::params::list() {
            println!("option name {name} type spin default {value} min {min} max {max}");
        }
        #[cfg(feature = "tune")]
        for (name, on) in crate::search::params::switch_list() {
            println!("option name {name} type check default {on}");
        }
        println!("uciok");
    }

    fn set_option(&mut self, name: &str, value: Option<&str>) -> Result<(), String> {
        let value_of = || value.ok_or_else(|| format!("option '{name}' needs a value"));
        let spin = |min: i64, max: i64| -> Result<i64, String> {
            let text = value_of()?;
            let n: i64 = text
                .parse()
                .map_err(|_| format!("'{text}' is not a number for option '{name}'"))?;
            if !(min..=max).contains(&n) {
                return Err(format!("{n} is outside {min}..={max} for option '{name}'"));
            }
            Ok(n)
        };
        let check = || match value_of()? {
            "true" => Ok(true),
            "false" => Ok(false),
            other => Err(format!(
                "'{other}' is not true or false for option '{name}'"
            )),
        };
        match name.to_ascii_lowercase().as_str() {
            "hash" => self
                .engine
                .set_hash(spin(1, MAX_HASH_MB as i64)? as usize)?,
            "threads" => self
                .engine
                .set_threads(spin(1, MAX_THREADS as i64)? as usize),
            "multipv" => self.engine.set_multipv(spin(1, 256)? as usize),
            "move overhead" => self
                .engine
                .set_move_overhead(Duration::from_millis(spin(0, 5000)? as u64)),
            "ponder" => {
                check()?;
            }
            "uci_chess960" => self.engine.set_chess960(check()?),
            "uci_showwdl" => self.show_wdl = check()?,
            "uci_limitstrength" => self.set_strength(StrengthOptions {
                limit: check()?,
                ..self.strength
            }),
            "uci_elo" => self.set_strength(StrengthOptions {
                elo: spin(strength::MIN_ELO.into(), strength::MAX_ELO.into())? as u32,
                ..self.strength
            }),
            "skill level" => self.set_strength(StrengthOptions {
                skill_level: spin(0, strength::MAX_SKILL_LEVEL.into())? as u32,
                ..self.strength
            }),
            "evalfile" => {
                let path = value_of()?;
                if path == "<embedded>" {
                    self.engine.use_embedded_network();
                } else {
                    self.engine
                        .load_network(Path::new(path))
                        .map_err(|e| format!("{path}: {e}; keeping the current net"))?;
                    println!("info string loaded net {path}");
                }
            }
            "clear hash" => self.engine.clear(),
            "syzygypath" => {
                let found = self.engine.set_syzygy_path(value.unwrap_or(""))?;
                println!("info string {found}");
            }
            "syzygyprobedepth" => self.engine.set_syzygy_probe_depth(spin(1, 100)? as i32),
            "syzygyprobelimit" => self.engine.set_syzygy_probe_limit(spin(0, 7)? as usize),
            "syzygy50moverule" => self.engine.set_syzygy_50_move_rule(check()?),
            #[cfg(feature = "tune")]
            switch
                if crate::search::params::switch_list()
                    .iter()
                    .any(|&(known, _)| known == switch) =>
            {
                crate::search::params::set_switch(switch, check()?);
            }
            #[cfg(feature = "tune")]
            _ if crate::search::params::set(
                name,
                spin(i64::from(i32::MIN), i64::from(i32::MAX))? as i32,
            ) => {}
            _ => return Err(format!("unknown option '{name}'")),
        }
        Ok(())
    }

    fn set_strength(&mut self, options: StrengthOptions) {
        self.strength = options;
        self.engine.set_strength(options.strength());
    }

    /// Starts the search whatever part of the line was unreadable, reporting each such part.
    fn go(&mut self, mut go: GoCommand) {
        let mut limits = go.limits;
        for text in &go.search_moves {
            match self.engine.board().parse_uci_move(text) {
                Some(mv) => limits.search_moves.push(mv),
                None => go.skipped.push(ParseError::IllegalMove(text.clone())),
            }
        }
        for error in &go.skipped {
            println!("info string error: {error}; ignored");
        }
        if let Some(depth) = go.perft {
            self.perft(depth);
            return;
        }
        if limits.search_moves.is_empty() && !go.search_moves.is_empty() {
            println!("info string error: no legal move among searchmoves; searching them all");
        }
        let chess960 = self.engine.board().is_chess960();
        let show_wdl = self.show_wdl;
        let wdl_material = show_wdl.then(|| wdl::material(self.engine.board()));
        self.engine.go(
            limits,
            Box::new(UciReporter {
                chess960,
                wdl_material,
            }),
            Box::new(move |result| print_bestmove(&result, chess960, show_wdl)),
        );
    }

    fn perft(&mut self, depth: u32) {
        let mut board = self.engine.board().clone();
        let start = std::time::Instant::now();
        // Depth 0 has no moves to split by: its one node is the position.
        let mut total = u64::from(depth == 0);
        for (mv, nodes) in perft::divide(&mut board, depth) {
            println!("{}: {nodes}", mv.to_uci(board.is_chess960()));
            total += nodes;
        }
        let elapsed = start.elapsed();
        println!("\nNodes searched: {total}");
        println!(
            "info string perft {total} nodes in {} ms, {} nps",
            elapsed.as_millis(),
            (total as f64 / elapsed.as_secs_f64().max(1e-9)) as u64
        );
    }

    fn bench(&mut self, depth: Option<i32>, nn: bool) {
        if nn {
            println!("{}", nnbench::run(self.engine.network()));
            return;
        }
        let board = self.engine.board().clone();
        let report = bench::run(&mut self.engine, depth.unwrap_or(bench::DEFAULT_DEPTH));
        self.engine.clear();
        self.engine.set_board(board);
        println!("sliders: {}", SLIDERS.name());
        // The last line, which OpenBench and the scripts read.
        println!("{} nodes {} nps", report.nodes, report.nps());
    }

    fn display(&self) {
        let board = self.engine.board();
        for rank in (0..8).rev() {
            println!(" +---+---+---+---+---+---+---+---+");
            let row: Vec<String> = (0..8)
                .map(|file| {
                    board
                        .piece_at(crate::types::Square::from_coords(file, rank))
                        .map_or(' ', |p| p.letter())
                        .to_string()
                })
                .collect();
            println!(" | {} | {}", row.join(" | "), rank + 1);
        }
        println!(" +---+---+---+---+---+---+---+---+");
        println!("   a   b   c   d   e   f   g   h\n");
        println!("Fen: {}", board.to_fen());
        println!("Key: {:016X}", board.key());
        let checkers: Vec<String> = board.checkers().map(|sq| sq.to_string()).collect();
        println!("Checkers: {}", checkers.join(" "));
        println!("Sliders: {}", SLIDERS.name());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limit_strength_wins_over_skill_level_and_neither_is_full_strength() {
        let options = StrengthOptions::default();
        assert_eq!(options.strength(), None);
        let skill = StrengthOptions {
            skill_level: 5,
            ..options
        };
        assert_eq!(skill.strength(), Strength::from_skill_level(5));
        let limited = StrengthOptions {
            limit: true,
            elo: 1800,
            ..skill
        };
        assert_eq!(limited.strength(), Some(Strength::from_elo(1800)));
        // The default UCI_Elo is the top of the range, still a limit.
        let top = StrengthOptions {
            limit: true,
            ..options
        };
        assert_eq!(top.strength(), Some(Strength::from_elo(strength::MAX_ELO)));
    }

    #[test]
    fn a_bound_follows_its_score_before_wdl() {
        let reporter = UciReporter {
            chess960: false,
            wdl_material: Some(78),
        };
        let info = SearchInfo {
            depth: 7,
            seldepth: 11,
            multipv: 1,
            score: 30,
            tablebase: false,
            bound: ScoreBound::Lower,
            nodes: 3900,
            tbhits: 0,
            elapsed: Duration::from_millis(5),
            hashfull: 0,
            pv: vec![],
        };
        let line = reporter.info_line(&info);
        let score = format!(" score {} lowerbound wdl ", wdl::to_uci(30));
        assert!(line.contains(&score), "{line}");
    }
}
