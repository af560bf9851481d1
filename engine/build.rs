//! Chooses the net to embed: the file `EVALFILE` names if set, else the one `nets/DEFAULT` names.
//! A relative `EVALFILE` is taken from the workspace root, where cargo and make are run (a
//! build script itself runs in `engine/`).
//!
//! The engine is compiled for the hidden width N of that net, read off its size, so building
//! with a wider net (a generation that grew N) needs nothing but the net.

use std::path::PathBuf;

fn main() {
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
    let Some(hidden) = hidden_width(size) else {
        eprintln!(
            "error: {} has {size} bytes, which is no 768→N×2→1 net in bullet's layout \
             (2·(771·N + 1) bytes padded to a multiple of 64, N a multiple of 32)",
            net.display()
        );
        std::process::exit(1)
    };
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap()).join("hidden.rs");
    std::fs::write(out, hidden.to_string()).expect("OUT_DIR is writable");
    println!("cargo:rustc-env=PATINA_EVALFILE={}", net.display());
    println!(
        "cargo:rustc-env=PATINA_EVALFILE_NAME={}",
        net.file_name().unwrap().to_string_lossy()
    );
}

/// N such that a 768→N×2→1 net in bullet's layout (feature weights, feature bias, output weights
/// and output bias, all i16, padded to 64 bytes) has `size` bytes. The padding is under 64
/// bytes and each neuron adds 1542, so at most one N fits. N must be a multiple of 32, the
/// widest SIMD path's lane count.
fn hidden_width(size: u64) -> Option<u64> {
    let hidden = size.saturating_sub(2) / 1542;
    let fits = (1542 * hidden + 2).div_ceil(64) * 64 == size;
    (hidden > 0 && hidden % 32 == 0 && fits).then_some(hidden)
}
