//! Chooses the net to embed: the file `EVALFILE` names if set, else the one `nets/DEFAULT` names.
//! A relative `EVALFILE` is taken from the workspace root, where cargo and make are run (a
//! build script itself runs in `engine/`).
//!
//! The engine is compiled for the hidden width N of that net, read off its size, so building
//! with a wider net (a generation that grew N) needs nothing but the net. Its number of output
//! buckets is not compiled in: the engine reads it off the size of whichever net it loads.
//!
//! It also chooses the slider lookup (see `choose_sliders`).

use std::path::PathBuf;

// Compiled here and in the engine, whose unit tests test it; the build uses part of it.
#[allow(dead_code)]
#[path = "src/cpu/sliders.rs"]
mod sliders;

use sliders::{CpuId, SliderLookup};

fn main() {
    let (sliders, chosen_by) = choose_sliders();
    println!("cargo::rustc-check-cfg=cfg(pext_sliders)");
    if sliders == SliderLookup::Pext {
        println!("cargo:rustc-cfg=pext_sliders");
    }
    println!("cargo:rustc-env=PATINA_SLIDERS_CHOSEN_BY={chosen_by}");
    println!("cargo:rerun-if-env-changed=EVALFILE");
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap()).join("..");
    let nets = root.join("nets");
    let (net, named_by) = match std::env::var("EVALFILE") {
        Ok(path) if !path.is_empty() => (
            root.join(path),
            "EVALFILE (a relative path is taken from the workspace root)",
        ),
        _ => {
            let default = nets.join("DEFAULT");
            println!("cargo:rerun-if-changed={}", default.display());
            let name = std::fs::read_to_string(&default).unwrap_or_else(|e| {
                eprintln!("error: cannot read {}: {e}", default.display());
                std::process::exit(1)
            });
            (nets.join(name.trim()), "nets/DEFAULT")
        }
    };
    let net = net.canonicalize().unwrap_or_else(|e| {
        eprintln!(
            "error: cannot embed the net {}, named by {named_by}: {e}",
            net.display()
        );
        std::process::exit(1)
    });
    println!("cargo:rerun-if-changed={}", net.display());
    let size = std::fs::metadata(&net).map_or(0, |m| m.len());
    let hidden = match layouts(size).as_slice() {
        [(hidden, _)] => *hidden,
        [] => {
            eprintln!(
                "error: {} has {size} bytes, which is no (768·K)→N×2→B net in bullet's layout \
                 (2·(768·K·N + N + B·(2N + 1)) bytes padded to a multiple of 64, N a multiple of \
                 32, K one of {KING_BUCKET_COUNTS:?} king buckets, B from 1 to {MAX_BUCKETS} \
                 output buckets)",
                net.display()
            );
            std::process::exit(1)
        }
        several => {
            eprintln!(
                "error: {} has {size} bytes, which fits (768·K)→N×2→B nets of several widths \
                 (N, [(K, B)]): {several:?}",
                net.display()
            );
            std::process::exit(1)
        }
    };
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap()).join("hidden.rs");
    std::fs::write(out, hidden.to_string()).expect("OUT_DIR is writable");
    println!("cargo:rustc-env=PATINA_EVALFILE={}", net.display());
    println!(
        "cargo:rustc-env=PATINA_EVALFILE_NAME={}",
        net.file_name().unwrap().to_string_lossy()
    );
}

/// PEXT or magic slider lookups, and what chose them: `PATINA_SLIDERS` (`pext` or `magic`) if
/// set; else magic if the target lacks BMI2; else, for a `target-cpu=native` build (the default,
/// from .cargo/config.toml, and `make`'s), the CPU of this machine, which is then the target,
/// read with CPUID; else the named target CPU (`znver2` is a Zen 2; `x86-64-v3` could be any).
///
/// Chosen at build time, not at start-up: a choice at start-up would put a branch or an
/// indirect call in every slider lookup, the innermost step of move generation, and the two
/// lookups order the attack table differently, so both tables would be built and kept. A
/// binary run on another CPU than it was built for warns instead (`cpu::slow_sliders_warning`).
fn choose_sliders() -> (SliderLookup, &'static str) {
    println!("cargo:rerun-if-env-changed=PATINA_SLIDERS");
    let env = |name: &str| std::env::var(name).unwrap_or_default();
    let has_bmi2 = env("CARGO_CFG_TARGET_FEATURE")
        .split(',')
        .any(|f| f == "bmi2");
    match env("PATINA_SLIDERS").as_str() {
        "magic" => return (SliderLookup::Magic, "PATINA_SLIDERS"),
        "pext" if has_bmi2 => return (SliderLookup::Pext, "PATINA_SLIDERS"),
        "" => {}
        other => {
            eprintln!(
                "error: PATINA_SLIDERS={other}: it takes `magic`, or `pext` for a target with BMI2"
            );
            std::process::exit(1)
        }
    }
    if !has_bmi2 {
        return (SliderLookup::Magic, "target");
    }
    // The last -C target-cpu wins, as in rustc.
    let flags = env("CARGO_ENCODED_RUSTFLAGS");
    let mut flags = flags.split('\x1f');
    let mut target_cpu = None;
    while let Some(flag) = flags.next() {
        let flag = if flag == "-C" {
            flags.next().unwrap_or_default()
        } else {
            flag
        };
        if let Some(cpu) = flag
            .strip_prefix("-C")
            .unwrap_or(flag)
            .strip_prefix("target-cpu=")
        {
            target_cpu = Some(cpu);
        }
    }
    match target_cpu {
        Some("native") if env("HOST") == env("TARGET") => match CpuId::read() {
            Some(cpu) => (cpu.slider_lookup(), "native"),
            None => (SliderLookup::Pext, "target"),
        },
        // AMD's CPUs with BMI2 before Zen 3, by LLVM's names.
        Some("znver1" | "znver2" | "bdver4") => (SliderLookup::Magic, "target"),
        _ => (SliderLookup::Pext, "target"),
    }
}

/// As `patina::nnue::MAX_BUCKETS` and `KING_BUCKET_COUNTS` (a build script cannot use the crate
/// it builds).
const MAX_BUCKETS: u64 = 32;
const KING_BUCKET_COUNTS: [u64; 4] = [1, 4, 8, 16];

/// The widths N for which a (768·K)→N×2→B net in bullet's layout (feature weights, feature bias,
/// output weights and output biases, all i16, padded to 64 bytes) has `size` bytes, with the
/// (K, B) of each. N must be a multiple of 32, the widest SIMD path's lane count; K is one of
/// `KING_BUCKET_COUNTS`; B runs from 1 (no output buckets) to `MAX_BUCKETS`. With N = 32k the
/// size is 64·(k·(768·K + 1 + 2B) + 1), so for each (K, B) at most one N fits. Only the N must
/// be unique: the engine reads K and B off the size of the net it loads.
fn layouts(size: u64) -> Vec<(u64, Vec<(u64, u64)>)> {
    let mut widths: Vec<(u64, Vec<(u64, u64)>)> = Vec::new();
    for king_buckets in KING_BUCKET_COUNTS {
        for buckets in 1..=MAX_BUCKETS {
            let per_neuron = 2 * (768 * king_buckets + 1) + 4 * buckets;
            let hidden = 32 * (size.saturating_sub(2 * buckets) / (32 * per_neuron));
            let fits = (per_neuron * hidden + 2 * buckets).div_ceil(64) * 64 == size;
            if hidden == 0 || !fits {
                continue;
            }
            match widths.iter_mut().find(|(n, _)| *n == hidden) {
                Some((_, shapes)) => shapes.push((king_buckets, buckets)),
                None => widths.push((hidden, vec![(king_buckets, buckets)])),
            }
        }
    }
    widths
}
