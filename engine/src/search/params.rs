//! Search parameters that matter for strength. In a normal build each is a constant; with the
//! `tune` feature each becomes a UCI option (`setoption name <param> value <n>`) for SPSA tuning.
//! Switches turn a whole search technique off in the `tune` build (`setoption name lmr value
//! false`), so that an ablation is an option value, not a patched rebuild; in a normal build
//! they are `true` and compile away.

macro_rules! parameters {
    ($($name:ident: $default:expr, $min:expr, $max:expr;)*) => {
        #[cfg(not(feature = "tune"))]
        mod values {
            $(
                #[inline(always)]
                pub fn $name() -> i32 {
                    $default
                }
            )*
        }

        #[cfg(feature = "tune")]
        mod values {
            use std::sync::atomic::{AtomicI32, Ordering::Relaxed};

            #[allow(non_upper_case_globals)]
            mod storage {
                use super::AtomicI32;
                $(pub static $name: AtomicI32 = AtomicI32::new($default);)*
            }

            $(
                #[inline(always)]
                pub fn $name() -> i32 {
                    storage::$name.load(Relaxed)
                }
            )*

            /// Every tunable as (name, value, min, max).
            pub fn list() -> Vec<(&'static str, i32, i32, i32)> {
                vec![$((stringify!($name), $name(), $min, $max)),*]
            }

            /// Sets a tunable by name; false if there is none of that name or the value is out of range.
            pub fn set(name: &str, value: i32) -> bool {
                match name {
                    $(stringify!($name) if ($min..=$max).contains(&value) => storage::$name.store(value, Relaxed),)*
                    _ => return false,
                }
                true
            }
        }

        pub use values::*;
    };
}

macro_rules! switches {
    ($($(#[$doc:meta])* $name:ident;)*) => {
        #[cfg(not(feature = "tune"))]
        mod switch_values {
            $(
                $(#[$doc])*
                #[inline(always)]
                pub fn $name() -> bool {
                    true
                }
            )*
        }

        #[cfg(feature = "tune")]
        mod switch_values {
            use std::sync::atomic::{AtomicBool, Ordering::Relaxed};

            #[allow(non_upper_case_globals)]
            mod storage {
                use super::AtomicBool;
                $(pub static $name: AtomicBool = AtomicBool::new(true);)*
            }

            $(
                $(#[$doc])*
                #[inline(always)]
                pub fn $name() -> bool {
                    storage::$name.load(Relaxed)
                }
            )*

            /// Every switch as (name, value).
            pub fn switch_list() -> Vec<(&'static str, bool)> {
                vec![$((stringify!($name), $name())),*]
            }

            /// Sets a switch by name; false if there is none of that name.
            pub fn set_switch(name: &str, on: bool) -> bool {
                match name {
                    $(stringify!($name) => storage::$name.store(on, Relaxed),)*
                    _ => return false,
                }
                true
            }
        }

        pub use switch_values::*;
    };
}

parameters! {
    aspiration_window: 20, 5, 60;
    razor_margin: 250, 100, 500;
    razor_depth: 3, 1, 6;
    rfp_depth: 8, 4, 12;
    rfp_margin: 80, 30, 150;
    nmp_base_reduction: 4, 2, 6;
    nmp_depth_divisor: 3, 2, 6;
    nmp_eval_divisor: 200, 100, 400;
    nmp_eval_per_depth: 20, 0, 60;
    nmp_eval_offset: 160, 0, 400;
    iir_min_depth: 4, 2, 8;
    lmp_base: 3, 1, 8;
    futility_base: 100, 30, 250;
    futility_per_depth: 100, 40, 200;
    see_quiet_margin: 60, 20, 120;
    see_noisy_margin: 90, 40, 160;
    history_prune_margin: 4000, 1000, 8000;
    lmr_base: 77, 40, 120;
    lmr_divisor: 226, 150, 350;
    lmr_history_divisor: 8192, 4000, 16000;
    lmr_cut_node: 2, 0, 4;
    singular_min_depth: 8, 5, 12;
    double_extension_margin: 20, 5, 50;
    history_bonus_scale: 300, 100, 500;
    history_bonus_offset: 250, 0, 500;
    history_bonus_max: 2500, 1000, 4000;
    correction_weight: 256, 64, 512;
    tm_soft_permille: 50, 30, 100;
    tm_increment_percent: 85, 50, 100;
    tm_node_offset_percent: 150, 100, 200;
    tm_node_scale_percent: 135, 50, 250;
}

switches! {
    /// Aspiration windows around the previous iteration's score.
    aspiration;
    /// Node pruning before the move loop: razoring, reverse futility, null move.
    node_pruning;
    /// Internal iterative reduction without a table move.
    iir;
    /// Move-loop pruning: late move, futility, SEE and history pruning.
    move_pruning;
    /// Singular extensions, double and negative extensions, multi-cut.
    singular;
    /// Extension of moves that give check.
    check_extension;
    /// Late move reductions.
    lmr;
    /// Quiescence pruning of under-promotions and of moves that lose material (SEE).
    qsearch_pruning;
    /// Capture history in move ordering and pruning.
    capture_history;
    /// Continuation history (1 and 2 plies) in move ordering and pruning.
    continuation_history;
    /// Pawn and non-pawn correction history applied to the static eval.
    correction;
}
