//! The `patina` binary: a UCI engine, plus `bench`, `perft`, `go` and the other commands
//! from the shell.

use std::io::BufReader;

use patina::uci::Uci;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut uci = Uci::default();
    if args.is_empty() {
        uci.run(BufReader::new(std::io::stdin()));
        return;
    }
    // Command-line form: the arguments are one UCI command (OpenBench runs `patina bench`),
    // except `perft N [fen]`, which sets the position first.
    let line = match args.first().map(String::as_str) {
        Some("perft") if args.len() > 2 => {
            let position = format!("position fen {}", args[2..].join(" "));
            uci.execute(&position);
            format!("perft {}", args[1])
        }
        _ => args.join(" "),
    };
    uci.execute(&line);
    uci.finish();
}
