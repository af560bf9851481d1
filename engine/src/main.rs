use patina::{board::Board, tools::perft};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("perft") {
        let depth: u32 = args.get(2).and_then(|d| d.parse().ok()).unwrap_or(5);
        let fen = if args.len() > 3 {
            args[3..].join(" ")
        } else {
            patina::board::START_FEN.to_string()
        };
        let mut board = Board::from_fen(&fen).unwrap();
        let start = std::time::Instant::now();
        let mut total = 0;
        for (mv, n) in perft::divide(&mut board, depth) {
            println!("{}: {n}", mv.to_uci(board.is_chess960()));
            total += n;
        }
        println!("\nNodes searched: {total} ({:?})", start.elapsed());
    }
}
