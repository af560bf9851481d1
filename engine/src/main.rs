//! The `patina` binary: a UCI engine, plus `bench`, `perft`, `go` and the other commands
//! from the shell. `play` and `web` hand over to `patina-play`, so that the engine binary
//! carries no terminal UI or HTTP server.

use std::io::BufReader;
use std::process::{Command, ExitCode};

use patina::{command_lines, Executed, Uci};

const USAGE: &str = "\
usage: patina                      a UCI engine on standard input and output
       patina COMMAND...           UCI commands, one per argument or as words, then exit:
         bench [DEPTH | nn]          search the bench positions; the last line is the signature
         perft DEPTH [FEN | startpos]  count the leaf nodes of the move tree
         eval | d | probe            the net's evaluation, the board, a tablebase probe
         genfens N seed S book FILE|None [dfrc]   OpenBench's opening generation
         e.g. patina \"setoption name Hash value 64\" \"position startpos moves e2e4\" eval
       patina play [OPTIONS]       play Patina in the terminal (patina play --help)
       patina web [OPTIONS]        play Patina in a web page on this machine (patina web --help)
       patina --version
";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if matches!(args.first().map(String::as_str), Some("play" | "web")) {
        return run_play(&args);
    }
    end_quietly_on_closed_output();
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
    if matches!(args.as_slice(), [flag] if flag == "--version" || flag == "-V") {
        println!("{}", patina::NAME);
        return ExitCode::SUCCESS;
    }
    if matches!(args.as_slice(), [flag] if flag == "--help" || flag == "-h") {
        print!("{USAGE}");
        return ExitCode::SUCCESS;
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

/// Hands `args` (`play ...` or `web ...`) to `patina-play` in this binary's folder.
fn run_play(args: &[String]) -> ExitCode {
    let program = format!("patina-play{}", std::env::consts::EXE_SUFFIX);
    let path = match std::env::current_exe() {
        Ok(exe) => exe.with_file_name(&program),
        Err(e) => {
            eprintln!("patina: cannot find this binary's folder, where {program} would be: {e}");
            return ExitCode::FAILURE;
        }
    };
    if !path.is_file() {
        eprintln!(
            "patina: `patina {}` needs {program} beside this binary ({}); \
             `cargo build --release` builds both into target/release/",
            args[0],
            path.display()
        );
        return ExitCode::FAILURE;
    }
    let mut command = Command::new(&path);
    command.args(args);
    // On Unix it takes this process over (`exec` returns only if it failed); elsewhere it runs
    // as a child whose exit code this process passes on.
    #[cfg(unix)]
    let error = std::os::unix::process::CommandExt::exec(&mut command);
    #[cfg(not(unix))]
    let error = match command.status() {
        Ok(status) => {
            return status
                .code()
                .and_then(|code| u8::try_from(code).ok())
                .map_or(ExitCode::FAILURE, ExitCode::from)
        }
        Err(error) => error,
    };
    eprintln!("patina: cannot run {}: {error}", path.display());
    ExitCode::FAILURE
}

/// Rust ignores SIGPIPE, so a write to a closed pipe (`patina perft 6 | head`, a GUI that quit)
/// panics and aborts. The default action ends the process quietly, as for any Unix tool.
fn end_quietly_on_closed_output() {
    #[cfg(unix)]
    // SAFETY: restoring a signal's default action, before any thread is started.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}
