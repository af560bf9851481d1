//! Chooses the net to embed: the file `EVALFILE` names if set, else the one `nets/DEFAULT` names.

use std::path::PathBuf;

fn main() {
    println!("cargo:rerun-if-env-changed=EVALFILE");
    let nets = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap()).join("../nets");
    let net = match std::env::var("EVALFILE") {
        Ok(path) if !path.is_empty() => PathBuf::from(path),
        _ => {
            let default = nets.join("DEFAULT");
            println!("cargo:rerun-if-changed={}", default.display());
            let name =
                std::fs::read_to_string(&default).expect("nets/DEFAULT names the default net");
            nets.join(name.trim())
        }
    };
    let net = net
        .canonicalize()
        .unwrap_or_else(|e| panic!("net file {}: {e}", net.display()));
    println!("cargo:rerun-if-changed={}", net.display());
    println!("cargo:rustc-env=PATINA_EVALFILE={}", net.display());
    println!(
        "cargo:rustc-env=PATINA_EVALFILE_NAME={}",
        net.file_name().unwrap().to_string_lossy()
    );
}
