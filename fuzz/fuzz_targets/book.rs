//! Opening books, EPD or PGN (the first byte picks which): every position a book that loads
//! hands out is a board a game can start from.
#![no_main]

use libfuzzer_sys::fuzz_target;
use patina::openings::Book;
use patina_fuzz::scratch_file;
use rand_xoshiro::rand_core::SeedableRng;

fuzz_target!(|data: &[u8]| {
    let Some((&kind, text)) = data.split_first() else {
        return;
    };
    let name = if kind % 2 == 0 {
        "book.epd"
    } else {
        "book.pgn"
    };
    let Ok(book) = Book::load(&scratch_file(name, text)) else {
        return;
    };
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(u64::from(kind));
    for _ in 0..book.len().min(8) {
        let board = book.random(&mut rng);
        assert!(board.outcome().is_none(), "{}", board.to_fen());
    }
});
