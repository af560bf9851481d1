//! Portable reference kernels. i16 arithmetic wraps and the dot product accumulates in
//! wrapping i32, exactly as the vector paths do. Generic over the width N so the benchmarks
//! can compare widths in one build; the engine instantiates them at `HIDDEN`.

use crate::nnue::QA;

pub const NAME: &str = "scalar";

pub fn add_assign<const N: usize>(acc: &mut [i16; N], add: &[i16; N]) {
    for (a, &w) in acc.iter_mut().zip(add) {
        *a = a.wrapping_add(w);
    }
}

pub fn add_sub<const N: usize>(
    output: &mut [i16; N],
    input: &[i16; N],
    add: &[i16; N],
    sub: &[i16; N],
) {
    for i in 0..N {
        output[i] = input[i].wrapping_add(add[i]).wrapping_sub(sub[i]);
    }
}

pub fn add_sub_sub<const N: usize>(
    output: &mut [i16; N],
    input: &[i16; N],
    add: &[i16; N],
    sub1: &[i16; N],
    sub2: &[i16; N],
) {
    for i in 0..N {
        output[i] = input[i]
            .wrapping_add(add[i])
            .wrapping_sub(sub1[i])
            .wrapping_sub(sub2[i]);
    }
}

pub fn add_add_sub_sub<const N: usize>(
    output: &mut [i16; N],
    input: &[i16; N],
    add1: &[i16; N],
    add2: &[i16; N],
    sub1: &[i16; N],
    sub2: &[i16; N],
) {
    for i in 0..N {
        output[i] = input[i]
            .wrapping_add(add1[i])
            .wrapping_add(add2[i])
            .wrapping_sub(sub1[i])
            .wrapping_sub(sub2[i]);
    }
}

/// Σ clamp(x, 0, QA)² · w, computed as (v·w)·v with v·w in i16 (it fits: |w| < 128 after
/// bullet's ±1.98 clipping at QB = 64) so the vector paths can use a 16-bit multiply.
pub fn screlu_dot<const N: usize>(input: &[i16; N], weights: &[i16; N]) -> i32 {
    let mut sum = 0i32;
    for (&x, &w) in input.iter().zip(weights) {
        let v = x.clamp(0, QA as i16);
        let vw = v.wrapping_mul(w);
        sum = sum.wrapping_add(i32::from(vw) * i32::from(v));
    }
    sum
}
