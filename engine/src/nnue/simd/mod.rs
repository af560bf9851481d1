//! The network's vector kernels. Each instruction set gets one small module with the same
//! functions; `scalar` is the reference every other path must match bit for bit.
//! The path is chosen at compile time from the build's target features.

pub mod scalar;

pub use scalar::{add_add_sub_sub, add_assign, add_sub, add_sub_sub, screlu_dot};
