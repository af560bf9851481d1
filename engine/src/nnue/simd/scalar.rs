//! Portable reference kernels. i16 arithmetic wraps and the dot product accumulates in
//! wrapping i32, exactly as the vector paths do.

use crate::nnue::{HIDDEN, QA};

pub fn add_assign(acc: &mut [i16; HIDDEN], add: &[i16; HIDDEN]) {
    for (a, &w) in acc.iter_mut().zip(add) {
        *a = a.wrapping_add(w);
    }
}

pub fn add_sub(
    output: &mut [i16; HIDDEN],
    input: &[i16; HIDDEN],
    add: &[i16; HIDDEN],
    sub: &[i16; HIDDEN],
) {
    for i in 0..HIDDEN {
        output[i] = input[i].wrapping_add(add[i]).wrapping_sub(sub[i]);
    }
}

pub fn add_sub_sub(
    output: &mut [i16; HIDDEN],
    input: &[i16; HIDDEN],
    add: &[i16; HIDDEN],
    sub1: &[i16; HIDDEN],
    sub2: &[i16; HIDDEN],
) {
    for i in 0..HIDDEN {
        output[i] = input[i]
            .wrapping_add(add[i])
            .wrapping_sub(sub1[i])
            .wrapping_sub(sub2[i]);
    }
}

pub fn add_add_sub_sub(
    output: &mut [i16; HIDDEN],
    input: &[i16; HIDDEN],
    add1: &[i16; HIDDEN],
    add2: &[i16; HIDDEN],
    sub1: &[i16; HIDDEN],
    sub2: &[i16; HIDDEN],
) {
    for i in 0..HIDDEN {
        output[i] = input[i]
            .wrapping_add(add1[i])
            .wrapping_add(add2[i])
            .wrapping_sub(sub1[i])
            .wrapping_sub(sub2[i]);
    }
}

/// Σ clamp(x, 0, QA)² · w, computed as (v·w)·v with v·w in i16 (it fits: |w| < 128 after
/// bullet's ±1.98 clipping at QB = 64) so the vector paths can use a 16-bit multiply.
pub fn screlu_dot(input: &[i16; HIDDEN], weights: &[i16; HIDDEN]) -> i32 {
    let mut sum = 0i32;
    for (&x, &w) in input.iter().zip(weights) {
        let v = x.clamp(0, QA as i16);
        let vw = v.wrapping_mul(w);
        sum = sum.wrapping_add(i32::from(vw) * i32::from(v));
    }
    sum
}
