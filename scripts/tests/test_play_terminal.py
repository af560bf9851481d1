"""`patina play` in a real terminal: tmux runs it, the test types and reads the screen."""

import shutil
import subprocess
import sys
import tempfile
import time
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from play_binary import patina_with_play  # noqa: E402

PATINA, WHY_NOT = patina_with_play()
TMUX = shutil.which("tmux")


@unittest.skipIf(TMUX is None, "tmux is not installed (apt-get install tmux)")
@unittest.skipIf(PATINA is None, WHY_NOT)
class TerminalGame(unittest.TestCase):
    def setUp(self):
        # A private tmux server, so the test never touches a person's sessions.
        self.socket = f"patina-play-test-{time.monotonic_ns()}"
        self.tmp = Path(tempfile.mkdtemp())
        self.tmux("new-session", "-d", "-s", "play", "-x", "110", "-y", "60",
                  f"{PATINA} play")

    def tearDown(self):
        subprocess.run([TMUX, "-L", self.socket, "kill-server"], capture_output=True)
        shutil.rmtree(self.tmp, ignore_errors=True)

    def tmux(self, *args):
        return subprocess.run([TMUX, "-u", "-L", self.socket, *args], capture_output=True,
                              text=True, check=True).stdout

    def screen(self):
        # Without the blank rows below the cursor, so text only ever grows at the end.
        return self.tmux("capture-pane", "-p", "-J", "-t", "play", "-S", "-500").rstrip()

    def type(self, line):
        self.tmux("send-keys", "-t", "play", "-l", line)
        self.tmux("send-keys", "-t", "play", "Enter")

    def wait_for(self, text, after=0, timeout=30):
        """Waits until `text` shows on the screen past character `after`; returns the screen."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            screen = self.screen()
            if text in screen[after:]:
                return screen
            time.sleep(0.1)
        self.fail(f"{text!r} never showed; the screen:\n{self.screen()}")

    def test_a_short_game_with_undo_and_an_illegal_move(self):
        screen = self.wait_for("White to move>")
        self.assertIn(" 1   ♖  ♘  ♗  ♕  ♔  ♗  ♘  ♖   1", screen)
        self.assertIn(" 8   ♜  ♞  ♝  ♛  ♚  ♝  ♞  ♜   8", screen)

        self.type("level depth 3")
        self.wait_for("Level: depth 3, 1 thread.")
        mark = len(self.screen())
        self.type("e4")
        screen = self.wait_for("White to move>", after=mark)
        self.assertIn("Patina played 1... ", screen[mark:])
        self.assertIn("Line: 1... ", screen[mark:])
        # The engine's reply is marked as the last move, the person's pawn stands on e4.
        self.assertRegex(screen[mark:], r" 4   ·  ·  ·  ·  ♙ ")
        # One board a full move, drawn after Patina's reply.
        self.assertEqual(screen[mark:].count("     a  b  c  d  e  f  g  h"), 2, screen[mark:])
        self.assertLess(screen[mark:].index(" 8   "), screen[mark:].index("Patina played"))

        mark = len(self.screen())
        self.type("Ke3")
        screen = self.wait_for("Legal moves:", after=mark)
        self.assertIn("Illegal move 'Ke3'", screen[mark:])
        self.assertIn("Nf3", screen[mark:])

        mark = len(self.screen())
        self.type("undo")
        screen = self.wait_for("White to move>", after=mark)
        self.assertIn("Took back.", screen[mark:])
        self.assertIn(" 2   ♙  ♙  ♙  ♙  ♙  ♙  ♙  ♙   2", screen[mark:])
        self.assertIn(" 7   ♟  ♟  ♟  ♟  ♟  ♟  ♟  ♟   7", screen[mark:])

        # An undo typed while Patina thinks stops it and takes the move back at once.
        self.type("level time 60")
        self.wait_for("Level: 60.00 s per move")
        mark = len(self.screen())
        self.type("d4")
        self.wait_for("Patina is thinking", after=mark)
        started = time.monotonic()
        self.type("undo")
        screen = self.wait_for("White to move>", after=mark, timeout=20)
        self.assertLess(time.monotonic() - started, 10)
        self.assertIn("Took back.", screen[mark:])
        self.assertNotIn("Patina played", screen[mark:])
        self.assertIn(" 2   ♙  ♙  ♙  ♙  ♙  ♙  ♙  ♙   2", screen[mark:])
        self.type("level depth 3")
        self.wait_for("Level: depth 3, 1 thread.", after=mark)

        # A back-rank position: whatever White plays but luft, Black mates with Ra1.
        mark = len(self.screen())
        self.type("new white fen r5k1/5ppp/8/8/1P6/8/5PPP/6K1 w - - 0 1")
        self.wait_for("White to move>", after=mark)
        mark = len(self.screen())
        self.type("b5")
        screen = self.wait_for("Game over.", after=mark)
        self.assertIn("Patina played 1... Ra1#", screen[mark:])
        self.assertIn("Checkmate: Black wins (0-1).", screen[mark:])
        # The last move in brackets, the mated king in parentheses.
        self.assertIn(" 1  [♜] ·  ·  ·  ·  · (♔) ·   1", screen[mark:])

        # Moves after the end are refused; the game saves as PGN.
        mark = len(self.screen())
        self.type("h3")
        self.wait_for("the game is over", after=mark)
        pgn = self.tmp / "game.pgn"
        self.type(f"save {pgn}")
        self.wait_for(f"Saved the game to {pgn}.")
        text = pgn.read_text()
        self.assertIn('[Result "0-1"]', text)
        self.assertIn('[FEN "r5k1/5ppp/8/8/1P6/8/5PPP/6K1 w - - 0 1"]', text)
        self.assertIn("1. b5 Ra1# 0-1", text)

        self.type("quit")
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            alive = subprocess.run([TMUX, "-L", self.socket, "has-session", "-t", "play"],
                                   capture_output=True).returncode == 0
            if not alive:
                break
            time.sleep(0.1)
        self.assertFalse(alive, "patina play did not quit")


if __name__ == "__main__":
    unittest.main()
