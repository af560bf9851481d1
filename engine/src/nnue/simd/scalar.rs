//! Portable reference kernels: plain loops, written independently of the vector paths so that
//! comparing them tests something.

use super::Kernels;
use crate::nnue::QA;

pub struct Scalar;

impl Kernels for Scalar {
    const NAME: &'static str = "scalar";

    fn add_assign<const N: usize>(acc: &mut [i16; N], add: &[i16; N]) {
        for (a, &w) in acc.iter_mut().zip(add) {
            *a = a.wrapping_add(w);
        }
    }

    fn sub_assign<const N: usize>(acc: &mut [i16; N], sub: &[i16; N]) {
        for (a, &w) in acc.iter_mut().zip(sub) {
            *a = a.wrapping_sub(w);
        }
    }

    fn add_sub<const N: usize>(
        output: &mut [i16; N],
        input: &[i16; N],
        add: &[i16; N],
        sub: &[i16; N],
    ) {
        for i in 0..N {
            output[i] = input[i].wrapping_add(add[i]).wrapping_sub(sub[i]);
        }
    }

    fn add_sub_sub<const N: usize>(
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

    fn add_add_sub_sub<const N: usize>(
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

    fn screlu_dot<const N: usize>(input: &[i16; N], weights: &[i16; N]) -> i32 {
        let mut sum = 0i32;
        for (&x, &w) in input.iter().zip(weights) {
            let v = x.clamp(0, QA as i16);
            let vw = v.wrapping_mul(w);
            sum = sum.wrapping_add(i32::from(vw) * i32::from(v));
        }
        sum
    }
}
