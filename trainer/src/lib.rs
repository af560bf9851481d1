//! Patina's CPU trainer for its NNUE: reads bullet's and viriformat's data, trains the
//! engine's 768→N×2→1 SCReLU net exactly as bullet does, and writes nets in bullet's layout.
//!
//! The network's shape, quantisation and feature index come from `patina::nnue`; nothing here
//! redefines them.

pub mod backprop;
pub mod bench;
pub mod checkpoint;
pub mod config;
pub mod error;
pub mod features;
pub mod history;
pub mod loader;
pub mod model;
pub mod optim;
pub mod plot;
pub mod precision;
pub mod quantise;
pub mod run;
pub mod schedule;
pub mod shuffle;
pub mod synthetic;
pub mod train;

/// The hidden widths N the trainer is compiled for (each is a separate instantiation).
pub const WIDTHS: [usize; 5] = [128, 256, 512, 768, 1024];

/// Evaluates `$body` with the constant `$n` set to the width `$hidden`, one of `WIDTHS`, or
/// returns a configuration error for any other width.
#[macro_export]
macro_rules! with_hidden {
    ($hidden:expr, $n:ident => $body:expr) => {
        $crate::with_hidden!(@widths $hidden, $n, $body, 128, 256, 512, 768, 1024)
    };
    (@widths $hidden:expr, $n:ident, $body:expr, $($width:literal),*) => {
        match $hidden {
            $($width => {
                const $n: usize = $width;
                $body
            })*
            other => Err($crate::error::TrainerError::Config(format!(
                "N = {other} is not a width the trainer is built for ({:?})",
                $crate::WIDTHS
            ))),
        }
    };
}

#[cfg(test)]
mod tests {
    use crate::error::Result;

    /// The macro's list and `WIDTHS` are written out twice; this keeps them in step.
    #[test]
    fn with_hidden_dispatches_exactly_the_listed_widths() {
        for width in super::WIDTHS {
            let dispatched: Result<usize> = crate::with_hidden!(width, N => Ok(N));
            assert_eq!(dispatched.unwrap(), width);
        }
        for width in [0, 64, 384, 2048] {
            let dispatched: Result<usize> = crate::with_hidden!(width, N => Ok(N));
            assert!(dispatched.is_err(), "{width}");
        }
    }
}
