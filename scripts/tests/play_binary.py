"""Finds a `patina` binary whose `play` and `web` work, for the play tests."""

import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def patina_with_play():
    """(path, None), or (None, why not): $PATINA, else the release build, else the test build.

    `patina play` runs `patina-play` from the binary's folder, so a binary without one beside it
    is passed over."""
    candidates = [os.environ.get("PATINA")] if os.environ.get("PATINA") else [
        ROOT / "target/release/patina",
        ROOT / "target/test-release/patina",
    ]
    for path in candidates:
        path = Path(path)
        if not path.is_file():
            continue
        try:
            out = subprocess.run([str(path), "play", "--help"], capture_output=True, text=True,
                                 timeout=20, stdin=subprocess.DEVNULL).stdout
        except (OSError, subprocess.TimeoutExpired):
            continue
        if "usage: patina play" in out:
            return path, None
    return None, ("no patina binary with patina-play beside it "
                  "(cargo build --release, or set $PATINA)")
