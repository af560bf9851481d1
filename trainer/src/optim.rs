//! AdamW exactly as bullet applies it: decoupled weight decay, no bias correction, the batch's
//! summed gradient scaled by 1/batch size, and every weight clipped after each step.
//!
//! bullet updates every weight on every step, including feature rows no position in the batch
//! touched (their momentum still decays and their decay still applies), so this does too.

pub const BETA1: f32 = 0.9;
pub const BETA2: f32 = 0.999;
pub const DECAY: f32 = 0.01;
pub const EPSILON: f32 = 1e-8;
/// Keeps weights quantisable: 1.98 × QA × … stays inside i16 for every layer.
pub const CLIP: f32 = 1.98;
/// Feature weights with a factoriser, bullet's choice: the engine's weight is a bucket's plus
/// the factoriser's, so each is held to half of `CLIP`.
pub const FACTORISED_CLIP: f32 = 0.99;

/// First and second moment estimates, one per parameter.
#[derive(Clone, Debug, PartialEq)]
pub struct AdamW {
    pub momentum: Vec<f32>,
    pub velocity: Vec<f32>,
}

/// One step's learning rate and gradient scale (1 / batch size).
#[derive(Clone, Copy, Debug)]
pub struct StepSize {
    pub lr: f32,
    pub grad_scale: f32,
}

impl AdamW {
    pub fn new(len: usize) -> Self {
        Self {
            momentum: vec![0.0; len],
            velocity: vec![0.0; len],
        }
    }
}

/// Updates one stretch of parameters with the matching stretch of moments and gradients, and
/// clips them into ±`clip`.
#[inline]
pub fn update(
    params: &mut [f32],
    momentum: &mut [f32],
    velocity: &mut [f32],
    grads: &[f32],
    step: StepSize,
    clip: f32,
) {
    let decay = 1.0 - DECAY * step.lr;
    let len = params.len();
    let (momentum, velocity, grads) = (&mut momentum[..len], &mut velocity[..len], &grads[..len]);
    for i in 0..len {
        let grad = grads[i] * step.grad_scale;
        let p = params[i] * decay;
        let m = BETA1 * momentum[i] + (1.0 - BETA1) * grad;
        let v = BETA2 * velocity[i] + (1.0 - BETA2) * grad * grad;
        momentum[i] = m;
        velocity[i] = v;
        params[i] = (p - step.lr * m / (v.sqrt() + EPSILON)).clamp(-clip, clip);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_bullets_formula_and_clips() {
        let (mut p, mut m, mut v) = ([0.5, 1.979, -0.2], [0.1, 0.0, 0.0], [0.01, 0.0, 0.0]);
        update(
            &mut p,
            &mut m,
            &mut v,
            &[2.0, -100.0, 0.0],
            StepSize {
                lr: 0.01,
                grad_scale: 0.5,
            },
            CLIP,
        );
        let grad = 1.0f32;
        let m0 = 0.9 * 0.1 + 0.1 * grad;
        let v0 = 0.999 * 0.01 + 0.001 * grad * grad;
        let p0 = 0.5 * (1.0 - 0.01 * 0.01) - 0.01 * m0 / (v0.sqrt() + 1e-8);
        let close = |a: f32, b: f32| (a - b).abs() < 1e-7;
        assert!(
            close(p[0], p0) && close(m[0], m0) && close(v[0], v0),
            "{:?}",
            (p[0], m[0], v[0])
        );
        assert_eq!(p[1], 1.98, "a step past the clip stops at it");
        assert_eq!(p[2], -0.2 * (1.0 - 0.01 * 0.01), "no gradient: decay only");
    }
}
