//! Move generation checked against published perft counts.

use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

use patina::perft;
use patina::Board;

fn check(fen: &str, expected: &[u64]) {
    let mut board = Board::from_fen(fen).unwrap_or_else(|e| panic!("{fen}: {e}"));
    for (depth, &count) in expected.iter().enumerate() {
        assert_eq!(
            perft(&mut board, depth as u32 + 1),
            count,
            "{fen} depth {}",
            depth + 1
        );
    }
}

#[test]
fn standard_positions() {
    check(
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        &[20, 400, 8902, 197_281, 4_865_609],
    );
    check(
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        &[48, 2039, 97_862, 4_085_603, 193_690_690],
    );
    check(
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        &[14, 191, 2812, 43_238, 674_624, 11_030_083],
    );
    check(
        "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
        &[6, 264, 9467, 422_333, 15_833_292],
    );
    check(
        "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
        &[44, 1486, 62_379, 2_103_487, 89_941_194],
    );
    check(
        "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
        &[46, 2079, 89_890, 3_894_594, 164_075_551],
    );
}

/// Named edge cases; counts from Stockfish 15.1's `go perft`.
#[test]
fn edge_cases() {
    // En passant that removes both pawns from a rank pin is illegal.
    check("8/8/8/8/k2Pp2Q/8/8/3K4 b - d3 0 1", &[6, 136, 863, 20_471]);
    // En passant that uncovers a diagonal check through the captured pawn is illegal.
    check("7k/8/8/8/3Pp3/8/8/B3K3 b - d3 0 1", &[4, 30, 182, 1703]);
    // En passant capturing the pawn that gives check is legal.
    check("8/8/8/2k5/3Pp3/8/8/4K3 b - d3 0 1", &[9, 50, 379, 2369]);
    check("8/8/8/8/3Pp3/8/8/B3K2k b - d3 0 1", &[5, 37, 174, 1602]);
    // Castling through an attacked square, out of check, and with the rook attacked.
    check(
        "r3k2r/8/8/8/8/8/5r2/R3K2R w KQkq - 0 1",
        &[22, 737, 15_333, 494_099],
    );
    check("4k3/4r3/8/8/8/8/8/R3K2R w KQ - 0 1", &[4, 68, 1654, 26_787]);
    check(
        "1r3k1r/8/8/8/8/8/8/R3K2R w KQk - 0 1",
        &[26, 549, 13_185, 302_962],
    );
    // Promotions, with and without capture, including capturing a castling rook.
    check(
        "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1",
        &[24, 496, 9483, 182_838],
    );
    check("r3k3/1P6/8/8/8/8/8/4K3 w q - 0 1", &[13, 124, 1434, 18_285]);
    // Chess960: king already on its castling square, rook already on its square.
    check(
        "1r4kr/8/8/8/8/8/8/1R4KR w BHbh - 0 1",
        &[24, 479, 10_954, 237_166],
    );
    check("4k3/8/8/8/8/8/8/2RK3R w CH - 0 1", &[25, 108, 2968, 14_843]);
    // Chess960: the castling rook shields the king's destination from a queen on the back rank.
    check("4k3/8/8/8/8/8/8/qRK5 w B - 0 1", &[4, 65, 876, 19_079]);
    // Chess960: castling rights on inner rooks (Shredder-FEN letters).
    check(
        "2r1kr2/8/8/8/8/8/8/1R2K1R1 w GBfc - 0 1",
        &[22, 501, 11_459, 264_663],
    );
}

fn suite(name: &str) -> Option<Vec<(String, Vec<u64>)>> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/testdata")
        .join(name);
    let Ok(text) = std::fs::read_to_string(&path) else {
        // Written to stderr directly, past the test harness's capture, so the skip shows.
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED: {} not found (it lives in the project's shared folder)",
            path.display()
        );
        return None;
    };
    let entries = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|line| {
            let mut parts = line.split(';');
            let fen = parts.next().unwrap().trim().to_string();
            let counts = parts
                .map(|p| p.split_whitespace().nth(1).unwrap().parse().unwrap())
                .collect();
            (fen, counts)
        })
        .collect();
    Some(entries)
}

/// Every entry at the deepest listed depth whose count is within `budget`, the entries shared
/// out among all cores.
fn run_suite(name: &str, budget: u64) {
    let Some(entries) = suite(name) else { return };
    let next = AtomicUsize::new(0);
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                while let Some((fen, counts)) = entries.get(next.fetch_add(1, Relaxed)) {
                    let mut board = Board::from_fen(fen).unwrap_or_else(|e| panic!("{fen}: {e}"));
                    let depth = counts.iter().rposition(|&c| c <= budget).unwrap_or(0);
                    assert_eq!(
                        perft(&mut board, depth as u32 + 1),
                        counts[depth],
                        "{fen} depth {}",
                        depth + 1
                    );
                }
            });
        }
    });
}

/// The whole suites at every listed depth (billions of nodes):
/// `cargo test --profile test-release --test perft -- --ignored`.
#[test]
#[ignore]
fn full_suites() {
    run_suite("perftsuite.epd", u64::MAX);
    run_suite("frcperftsuite.epd", u64::MAX);
}

#[test]
fn suite_fens_round_trip() {
    for name in ["perftsuite.epd", "frcperftsuite.epd"] {
        for (fen, _) in suite(name).into_iter().flatten() {
            let board = Board::from_fen(&fen).unwrap();
            let printed = board.to_fen();
            assert_eq!(
                Board::from_fen(&printed).unwrap(),
                board,
                "{fen} -> {printed}"
            );
            // Placement, side and clocks print exactly as given.
            let fields = |f: &str| {
                f.split_whitespace()
                    .enumerate()
                    .filter(|(i, _)| [0, 1, 4, 5].contains(i))
                    .map(|(_, s)| s.to_string())
                    .collect::<Vec<_>>()
            };
            assert_eq!(fields(&printed), fields(&fen));
        }
    }
}
