"""Finds a `patina` binary that knows `play` and `web`, for the play tests."""

import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def patina_with_play():
    """(path, None), or (None, why not): $PATINA, else the release build, else the test build."""
    candidates = [os.environ.get("PATINA")] if os.environ.get("PATINA") else [
        ROOT / "target/release/patina",
        ROOT / "target/test-release/patina",
    ]
    for path in candidates:
        path = Path(path)
        if not path.is_file():
            continue
        # An older build reads `play --help` as UCI commands and never prints the usage.
        try:
            out = subprocess.run([str(path), "play", "--help"], capture_output=True, text=True,
                                 timeout=20, stdin=subprocess.DEVNULL).stdout
        except (OSError, subprocess.TimeoutExpired):
            continue
        if "usage: patina play" in out:
            return path, None
    return None, "no patina binary with `play` (cargo build --release, or set $PATINA)"
