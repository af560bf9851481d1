//! viriformat game files, read by every tool that reads them: `datagen validate` (which replays
//! each game on Patina's board), `datagen stats`, and the trainer's loader.
#![no_main]

use libfuzzer_sys::fuzz_target;
use patina_fuzz::scratch_file;
use viriformat::dataformat::Filter;

fuzz_target!(|data: &[u8]| {
    let path = scratch_file("games.vf", data);
    let inputs = [path.clone()];
    let _ = datagen::validate::run(&inputs).map(|report| report.report());
    let _ = datagen::stats::collect(&inputs).map(|stats| stats.report());
    let _ = trainer::loader::read_viriformat(&path, &Filter::default());
    let _ = trainer::loader::read_viriformat(&path, &Filter::UNRESTRICTED);
});
