//! What each superbatch achieved, kept in the checkpoint and written out as a CSV log.

use std::fmt::Write;

/// One superbatch's outcome.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Record {
    pub superbatch: u64,
    pub train_loss: f64,
    /// NaN when nothing is held out.
    pub validation_loss: f64,
    pub lr: f32,
    pub wdl: f32,
    pub positions_per_second: f64,
    /// Wall time of this superbatch.
    pub seconds: f64,
}

pub fn csv(history: &[Record]) -> String {
    let mut out =
        String::from("superbatch,train_loss,validation_loss,lr,wdl,positions_per_second,seconds\n");
    for r in history {
        let _ = writeln!(
            out,
            "{},{:.8},{:.8},{},{},{:.0},{:.3}",
            r.superbatch,
            r.train_loss,
            r.validation_loss,
            r.lr,
            r.wdl,
            r.positions_per_second,
            r.seconds
        );
    }
    out
}
