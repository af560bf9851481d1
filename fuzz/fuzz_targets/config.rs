//! Trainer configurations in TOML: one that reads must print back to one that reads the same.
#![no_main]

use libfuzzer_sys::fuzz_target;
use trainer::config::Config;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(config) = Config::from_toml(text) else {
        return;
    };
    let _ = config.validate();
    let again = Config::from_toml(&config.to_toml()).expect("a printed config reads");
    assert_eq!(again.to_toml(), config.to_toml());
});
