//! `trainer train` as a user runs it, on data smaller than one default batch: `--epochs` makes
//! that many passes, the header gives the numbers the run used, output into a pipe, where no bar
//! shows, gets plain progress lines, and a fine-tune first reports its starting net's loss.

mod common;

use std::process::Command;

use common::temp_dir;
use trainer::checkpoint::Checkpoint;
use trainer::config::Config;
use trainer::loader::write_bulletformat;
use trainer::synthetic;

#[test]
fn epochs_are_passes_over_small_data_and_the_header_says_so() {
    let dir = temp_dir("command-line");
    let data = dir.join("data.bin");
    write_bulletformat(&data, &synthetic::dataset(1000, 5)).unwrap();
    let out_dir = dir.join("run");
    let output = Command::new(env!("CARGO_BIN_EXE_trainer"))
        .args(["train", "--data"])
        .arg(&data)
        .arg("--out-dir")
        .arg(&out_dir)
        .args(["--net-id", "t", "--epochs", "2", "--threads", "1"])
        .env("PATINA_PROGRESS_INTERVAL", "0")
        .output()
        .unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr),
    );
    assert!(output.status.success(), "{stdout}\n{stderr}");

    // The default validation asks for far more than the data's tenth, the most held out.
    assert!(
        stdout.contains("validation        100 positions"),
        "{stdout}"
    );
    assert!(
        stdout.contains("positions         1000 (900 training, 100 validation), 2.00 epochs"),
        "{stdout}"
    );
    // Two passes over 900 positions, counted by the trainer: the batches it trained (the last
    // checkpoint's) times their size.
    let log = std::fs::read_to_string(out_dir.join("log.csv")).unwrap();
    let superbatches = log.lines().count() - 1;
    let checkpoint = Checkpoint::load(&out_dir.join(format!("t-{superbatches}.ckpt"))).unwrap();
    let config = Config::from_toml(&checkpoint.config_toml).unwrap();
    assert_eq!(
        checkpoint.step * config.batch_size as u64,
        2 * 900,
        "{stdout}"
    );
    assert!(
        stdout.contains(&format!(
            "superbatches      {superbatches} × {} batches × {} positions (2 epochs)",
            config.batches_per_superbatch, config.batch_size
        )),
        "{stdout}"
    );

    // Plain lines (interval 0: at every draw), with no terminal's escape codes.
    assert!(
        stderr
            .lines()
            .any(|line| line.starts_with("superbatch") && line.contains("batches | loss")),
        "{stderr}"
    );
    assert!(!stderr.contains('\x1b'), "{stderr}");

    // A fine-tune from that net first gives the net's own validation loss: with a learning rate
    // too small to move a weight, the first superbatch's validation loss is the same.
    let output = Command::new(env!("CARGO_BIN_EXE_trainer"))
        .args(["train", "--data"])
        .arg(&data)
        .arg("--init")
        .arg(out_dir.join("t.nnue"))
        .arg("--out-dir")
        .arg(dir.join("fine-tune"))
        .args(["--net-id", "ft", "--superbatches", "1", "--threads", "1"])
        .args(["--lr-schedule", "constant", "--lr", "1e-12"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}");
    let validation = |prefix: &str| {
        let line = stdout.lines().find(|line| line.starts_with(prefix));
        let line = line.unwrap_or_else(|| panic!("no line {prefix}: {stdout}"));
        line.split("validation ").nth(1).unwrap()[..8].to_string()
    };
    assert_eq!(
        validation("start "),
        validation("superbatch    1/1"),
        "{stdout}"
    );
    std::fs::remove_dir_all(dir).unwrap();
}
