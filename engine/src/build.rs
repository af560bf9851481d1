//! Chooses the net to embed: `EVALFILE` if set, else `nets/default.nnue`.

use std::path::PathBuf;

fn main() {
    println!("cargo:rerun-if-env-changed=EVALFILE");
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let net = match std::env::var("EVALFILE") {
        Ok(path) if !path.is_empty() => std::fs::canonicalize(&path).unwrap_or_else(|e| panic!("EVALFILE={path}: {e}")),
        _ => manifest.join("../nets/default.nnue").canonicalize().expect("nets/default.nnue exists"),
    };
    println!("cargo:rerun-if-changed={}", net.display());
    let name = net.file_name().unwrap().to_string_lossy().into_owned();
    let name = match std::fs::read_link(&net) {
        Ok(target) => target.file_name().unwrap().to_string_lossy().into_owned(),
        Err(_) => name,
    };
    println!("cargo:rustc-env=PATINA_EVALFILE={}", net.display());
    println!("cargo:rustc-env=PATINA_EVALFILE_NAME={name}");
}
