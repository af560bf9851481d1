//! Chooses the net to embed: the file `EVALFILE` names if set, else the one `nets/DEFAULT` names.
//! A relative `EVALFILE` is taken from the workspace root, where cargo and make are run (a
//! build script itself runs in `engine/`).

use std::path::PathBuf;

fn main() {
    println!("cargo:rerun-if-env-changed=EVALFILE");
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap()).join("..");
    let nets = root.join("nets");
    let net = match std::env::var("EVALFILE") {
        Ok(path) if !path.is_empty() => root.join(path),
        _ => {
            let default = nets.join("DEFAULT");
            println!("cargo:rerun-if-changed={}", default.display());
            let name =
                std::fs::read_to_string(&default).expect("nets/DEFAULT names the default net");
            nets.join(name.trim())
        }
    };
    let net = net.canonicalize().unwrap_or_else(|e| {
        eprintln!("error: cannot embed the net {}: {e}", net.display());
        std::process::exit(1)
    });
    println!("cargo:rerun-if-changed={}", net.display());
    println!("cargo:rustc-env=PATINA_EVALFILE={}", net.display());
    println!(
        "cargo:rustc-env=PATINA_EVALFILE_NAME={}",
        net.file_name().unwrap().to_string_lossy()
    );
}
