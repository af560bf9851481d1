"""`patina web` end to end: a headless Chromium plays through the page, as a person would.

Needs Chromium with its driver (Debian: apt-get install chromium chromium-driver) and the
`selenium` package (pip install -r scripts/requirements.txt, in a virtual environment); skips
without them, saying which is missing. PATINA_SCREENSHOT=docs/play.png also saves a picture of
the page mid-game.
"""

import os
import re
import shutil
import subprocess
import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from play_binary import patina_with_play  # noqa: E402

try:
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.common.exceptions import TimeoutException
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select, WebDriverWait
except ImportError:
    webdriver = None

PATINA, WHY_NOT = patina_with_play()
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
DRIVER = shutil.which("chromedriver")
PIECES = {"p": "pawn", "n": "knight", "b": "bishop", "r": "rook", "q": "queen", "k": "king"}


def fen_pieces(fen):
    """{square: 'white knight'} from a FEN's placement field."""
    pieces = {}
    for row, text in enumerate(fen.split()[0].split("/")):
        file = 0
        for char in text:
            if char.isdigit():
                file += int(char)
                continue
            color = "white" if char.isupper() else "black"
            pieces["abcdefgh"[file] + str(8 - row)] = f"{color} {PIECES[char.lower()]}"
            file += 1
    return pieces


@unittest.skipIf(webdriver is None, "selenium is not installed (pip install -r scripts/requirements.txt)")
@unittest.skipIf(CHROMIUM is None or DRIVER is None,
                 "Chromium and chromedriver are not installed (apt-get install chromium chromium-driver)")
@unittest.skipIf(PATINA is None, WHY_NOT)
class WebGame(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        # Port 0: the system picks a free one, and the server prints it.
        cls.server = subprocess.Popen([str(PATINA), "web", "--port", "0"], stdout=subprocess.PIPE,
                                      text=True)
        line = cls.server.stdout.readline()
        match = re.search(r"http://127\.0\.0\.1:\d+/", line)
        if not match:
            cls.server.kill()
            raise RuntimeError(f"patina web printed no URL: {line!r}")
        cls.url = match.group(0)
        options = Options()
        options.binary_location = CHROMIUM
        for arg in ["--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1200,860",
                    "--disable-dev-shm-usage", "--disable-renderer-backgrounding",
                    "--disable-background-timer-throttling"]:
            options.add_argument(arg)
        # The board is ready once the module scripts ran (before DOMContentLoaded): no need to
        # wait for the load event, which a loaded machine can delay for minutes.
        options.page_load_strategy = "eager"
        cls.driver = webdriver.Chrome(options=options, service=Service(DRIVER))
        cls.driver.set_page_load_timeout(30)

    @classmethod
    def tearDownClass(cls):
        cls.driver.quit()
        cls.server.terminate()
        cls.server.wait(timeout=10)

    def setUp(self):
        # Headless Chromium on a busy machine sometimes loses its first navigation ("timed out
        # receiving message from renderer"); another try goes through.
        for attempt in range(3):
            try:
                self.driver.get(self.url)
                break
            except TimeoutException:
                if attempt == 2:
                    raise
        self.until(lambda d: self.state() is not None, "the page never got a game")

    def until(self, condition, message, timeout=60):
        """Waits for `condition`; `message` may be a function, to describe the page at the time."""
        try:
            return WebDriverWait(self.driver, timeout, poll_frequency=0.05).until(condition)
        except TimeoutException:
            self.fail(message() if callable(message) else message)

    def page_text(self):
        state = self.state() or {}
        error = self.driver.find_element(By.ID, "error").text
        return f"state {({k: state.get(k) for k in ('fen', 'moves', 'yourMove', 'thinking')})}, error {error!r}"

    def state(self):
        return self.driver.execute_script("return window.patina && window.patina.state")

    def your_move(self):
        return self.until(lambda d: (s := self.state()) and (s["yourMove"] or s["end"]) and s,
                          "the page never offered a move")

    def drawn_pieces(self):
        """The pieces the board shows, read from chessground's DOM."""
        pairs = self.driver.execute_script(
            "return Array.from(document.querySelectorAll('cg-board piece'))"
            ".filter(p => !p.classList.contains('ghost') && !p.classList.contains('fading'))"
            ".map(p => [p.cgKey, p.className])")
        return {key: " ".join(c for c in cls.split() if c in ("white", "black") or c in PIECES.values())
                for key, cls in pairs}

    def assert_board_shows(self, fen):
        want = fen_pieces(fen)
        # Animations end within chessground's 200 ms.
        self.until(lambda d: self.normalised(self.drawn_pieces()) == self.normalised(want),
                   f"the board does not show {fen}: {self.drawn_pieces()}")

    @staticmethod
    def normalised(pieces):
        return {k: " ".join(sorted(v.split())) for k, v in pieces.items()}

    def click_square(self, square):
        board = self.driver.find_element(By.CSS_SELECTOR, "cg-board")
        size = board.size["width"]
        white = self.driver.execute_script("return window.patina.cg.state.orientation") == "white"
        file, rank = "abcdefgh".index(square[0]), int(square[1]) - 1
        col, row = (file, 7 - rank) if white else (7 - file, rank)
        step = size / 8
        ActionChains(self.driver).move_to_element_with_offset(
            board, (col + 0.5) * step - size / 2, (row + 0.5) * step - size / 2).click().perform()

    def play(self, orig, dest):
        # A click the board takes before it has the position's moves picks nothing up, and the
        # second click then plays nothing: click the piece until the board has it selected.
        selected = "return window.patina.cg.state.selected || null"
        self.until(lambda d: self.click_square(orig) or self.driver.execute_script(selected) == orig,
                   lambda: f"{orig} was never picked up: {self.page_text()}")
        self.click_square(dest)

    def new_game(self, color="white", pace="movetime:100", fen="", rating="full", refused=False):
        """Starts a game from the form; waits until the page has it, unless it is to be refused."""
        Select(self.driver.find_element(By.ID, "color")).select_by_value(color)
        Select(self.driver.find_element(By.ID, "pace")).select_by_value(pace)
        Select(self.driver.find_element(By.ID, "rating")).select_by_value(rating)
        field = self.driver.find_element(By.ID, "fen")
        field.clear()
        field.send_keys(fen)
        before = self.state()["session"]
        started = self.driver.execute_script("return window.patina.started")
        self.driver.find_element(By.ID, "start").click()
        if not refused:
            self.until(lambda d: self.driver.execute_script("return window.patina.started") > started,
                       lambda: f"no new game: {self.page_text()}")
        self.assertEqual(self.state()["session"], before, "a new game keeps the tab's session")

    def test_several_moves_against_the_engine(self):
        self.new_game()
        preferred = ["e2e4", "g1f3", "f1c4", "b1c3", "d2d3", "e1g1", "c2c3", "h2h3", "a2a3"]
        for ply in range(4):
            state = self.your_move()
            dests = state["dests"]
            orig, dest = next(((m[:2], m[2:]) for m in preferred if m[2:] in dests.get(m[:2], [])),
                              None) or next((o, ds[0]) for o, ds in dests.items())
            count = len(state["moves"])
            self.play(orig, dest)
            state = self.until(lambda d: len(self.state()["moves"]) >= count + 2
                               and not self.state()["thinking"] and self.state(),
                               lambda: f"no reply to {orig}{dest}: {self.page_text()}")
            self.assertEqual(state["lastMove"] is not None, True)
            self.assert_board_shows(state["fen"])
        # The move list shows the game in SAN, and the engine's score and line are shown.
        moves_text = self.driver.find_element(By.ID, "moves").text
        for san in state["moves"]:
            self.assertIn(san, moves_text)
        self.assertRegex(self.driver.find_element(By.ID, "score").text, r"^([+-]\d+\.\d\d|#-?\d+)$")
        self.assertTrue(self.driver.find_element(By.ID, "pv").text.strip())
        self.assertEqual(self.driver.find_element(By.ID, "status").text, "Your move (White).")
        if os.environ.get("PATINA_SCREENSHOT"):
            self.driver.save_screenshot(os.environ["PATINA_SCREENSHOT"])

    def test_a_rating_is_chosen_by_name(self):
        options = [o.text for o in Select(self.driver.find_element(By.ID, "rating")).options]
        self.assertEqual(options[0], "beginner (1320)")
        self.assertEqual(options[-1], "full")
        self.new_game(color="black", rating="club")
        self.assertEqual(self.your_move()["rating"], {"name": "club", "elo": 1800})
        # A reload resumes the game and shows the rating it is played at.
        self.driver.refresh()
        self.until(lambda d: self.driver.execute_script("return window.patina.state") is not None,
                   lambda: f"the game did not resume: {self.page_text()}")
        self.assertEqual(Select(self.driver.find_element(By.ID, "rating")).first_selected_option.text,
                         "club (1800)")

    def test_promotion_and_takeback(self):
        # A pawn beside the knight, so that the game does not end at once as a dead draw.
        fen = "7k/P7/8/8/8/8/6P1/K7 w - - 0 1"
        self.new_game(fen=fen)
        self.assert_board_shows(fen)
        self.your_move()
        self.play("a7", "a8")
        chooser = self.driver.find_element(By.ID, "promotion")
        self.until(lambda d: chooser.is_displayed(), "no promotion choice")
        chooser.find_element(By.CSS_SELECTOR, "button[data-role=n]").click()
        state = self.until(lambda d: len(self.state()["moves"]) == 2 and self.state()["yourMove"]
                           and self.state(), "no reply to the promotion")
        self.assertEqual(state["moves"][0], "a8=N")
        self.assertEqual(len(state["moves"]), 2)
        self.assert_board_shows(state["fen"])
        self.assertEqual(self.drawn_pieces().get("a8"), "white knight")

        self.driver.find_element(By.ID, "undo").click()
        self.until(lambda d: self.state()["moves"] == [], "the takeback did not happen")
        self.assert_board_shows(fen)
        self.assertEqual(self.drawn_pieces().get("a7"), "white pawn")
        # The start position's score, searched before the move, is shown again.
        self.assertRegex(self.driver.find_element(By.ID, "score").text, r"^([+-]\d+\.\d\d|#-?\d+|[+-]TB)$")

    def shown_ply(self):
        return self.driver.execute_script("return window.patina.shownPly()")

    def click(self, element_id):
        self.driver.find_element(By.ID, element_id).click()

    def play_and_wait(self, orig, dest):
        count = len(self.your_move()["moves"])
        self.play(orig, dest)
        return self.until(lambda d: len(self.state()["moves"]) >= count + 2
                          and self.state()["yourMove"] and self.state(),
                          lambda: f"no reply to {orig}{dest}: {self.page_text()}")

    def test_the_move_list_steps_through_the_game(self):
        self.new_game()
        self.your_move()
        self.play_and_wait("e2", "e4")
        state = self.play_and_wait("g1", "f3")
        moves = self.driver.find_elements(By.CSS_SELECTOR, "#moves button.move")
        self.assertEqual([m.text for m in moves], state["moves"])
        # The first move: the board shows the position after it, and takes no move there.
        moves[0].click()
        self.until(lambda d: self.shown_ply() == 1, "clicking the first move did not show it")
        self.assert_board_shows(state["positions"][1]["fen"])
        current = self.driver.find_element(By.CSS_SELECTOR, "#moves button.current")
        self.assertEqual(current.get_attribute("data-ply"), "1")
        self.assertIsNone(self.driver.execute_script("return window.patina.cg.state.movable.color"))
        self.assertIn("move 1 of 4", self.driver.find_element(By.ID, "shown").text)
        # Back and on with the buttons and the arrow keys, then back to the game.
        self.click("first")
        self.assert_board_shows(state["positions"][0]["fen"])
        ActionChains(self.driver).send_keys("\ue014").perform()  # the right arrow
        self.until(lambda d: self.shown_ply() == 1, "the right arrow did not step on")
        self.click("next")
        self.assert_board_shows(state["positions"][2]["fen"])
        self.click("last")
        self.until(lambda d: self.shown_ply() == 4, "not back at the game")
        self.assert_board_shows(state["fen"])
        self.assertEqual(self.driver.execute_script("return window.patina.cg.state.movable.color"),
                         "white")

    def test_a_phone_sees_the_whole_board(self):
        for width, height in [(360, 740), (420, 900), (1280, 800)]:
            self.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
                "width": width, "height": height, "deviceScaleFactor": 2, "mobile": width < 600})
            try:
                self.setUp()
                # With clocks, which take room above and below the board.
                self.new_game(pace="clock:5+3")
                self.your_move()
                layout = self.driver.execute_script("""
                    const root = document.documentElement;
                    const board = document.querySelector('cg-board').getBoundingClientRect();
                    const aside = document.querySelector('aside').getBoundingClientRect();
                    const h1 = Array.from(document.querySelectorAll('cg-board piece'))
                        .find(p => p.cgKey === 'h1').getBoundingClientRect();
                    const clock = document.getElementById('clock-bottom').getBoundingClientRect();
                    return {scroll: root.scrollWidth, client: root.clientWidth,
                            left: board.left, right: board.right, width: board.width,
                            h1: h1.right, clock: clock.right, clockWidth: clock.width,
                            asideTop: aside.top, boardBottom: board.bottom};
                """)
                self.assertLessEqual(layout["scroll"], layout["client"],
                                     f"{width} px wide: a horizontal scrollbar: {layout}")
                self.assertGreaterEqual(layout["left"], 0, layout)
                self.assertLessEqual(layout["right"], layout["client"], layout)
                self.assertLessEqual(layout["h1"], layout["client"], f"the h-file is cut off: {layout}")
                self.assertGreater(layout["clockWidth"], 0, f"no clock shown: {layout}")
                self.assertLessEqual(layout["clock"], layout["client"], layout)
                if width < 600:
                    self.assertGreater(layout["width"], 0.8 * width, f"a small board: {layout}")
                else:
                    self.assertLess(layout["asideTop"], layout["boardBottom"],
                                    f"the panel is not beside the board: {layout}")
            finally:
                self.driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})

    def test_clocks_hint_and_resign(self):
        self.new_game(pace="clock:3+2")
        self.your_move()
        bottom = self.driver.find_element(By.ID, "clock-bottom")
        top = self.driver.find_element(By.ID, "clock-top")
        self.assertRegex(bottom.text, r"^You [23]:[0-5]\d$")
        self.assertEqual(top.text, "Patina 3:00")
        self.assertIn("running", bottom.get_attribute("class"))
        first = bottom.text
        self.until(lambda d: bottom.text != first, "the person's clock does not run")

        self.click("hintbutton")
        hint = self.driver.find_element(By.ID, "hint")
        self.until(lambda d: hint.is_displayed(), "no hint shown")
        self.assertRegex(hint.text, r"^Hint: [a-hKQRBNO]")
        self.assertTrue(self.driver.execute_script("return window.patina.cg.state.drawable.autoShapes.length"))

        self.click("resign")
        self.until(lambda d: self.state()["end"], "the resignation did not end the game")
        self.assertIn("White resigns: Black wins", self.driver.find_element(By.ID, "status").text)
        self.assertNotIn("running", bottom.get_attribute("class"))

    def test_an_imported_pgn_is_analysed(self):
        self.driver.find_element(By.CSS_SELECTOR, "#importbox summary").click()
        field = self.driver.find_element(By.ID, "pgntext")
        field.send_keys('[Event "x"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 *\n')
        self.click("load")
        state = self.until(lambda d: len(self.state()["moves"]) == 6 and self.state(), "no import")
        self.assertEqual(state["analysis"], 6)
        self.assertEqual(self.driver.find_element(By.ID, "analyse").text, "Play on")
        self.driver.find_element(By.CSS_SELECTOR, "#moves button[data-ply='3']").click()
        self.until(lambda d: self.state()["analysis"] == 3, "clicking a move did not analyse it")
        self.assert_board_shows(state["positions"][3]["fen"])
        score = self.driver.find_element(By.ID, "score")
        self.until(lambda d: re.match(r"^[+-]\d+\.\d\d$", score.text), "no analysis shown")
        self.assertTrue(self.driver.find_element(By.ID, "pv").text.startswith("2... "))
        # A malformed PGN is refused with the reason.
        field.clear()
        field.send_keys("1. e4 e5 2. Ke9 *")
        self.click("load")
        error = self.driver.find_element(By.ID, "error")
        self.until(lambda d: error.is_displayed(), "no error for a malformed PGN")
        self.assertIn("cannot read the PGN: illegal or unreadable move 'Ke9'", error.text)

    def white_share(self):
        """How much of the eval bar is White's, in percent."""
        return float(self.driver.find_element(By.ID, "evalfill").value_of_css_property("height")
                     .removesuffix("px")) / self.driver.find_element(By.ID, "evalbar").size["height"] * 100

    def test_the_eval_bar_after_a_fen_start_and_at_mate(self):
        # White a rook up, to move: the bar fills for White without Patina playing.
        self.new_game(fen="1nbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQk - 0 1")
        self.until(lambda d: self.white_share() > 75,
                   lambda: f"a rook up shows as {self.white_share():.0f} %: {self.page_text()}")
        self.assertRegex(self.driver.find_element(By.ID, "score").text, r"^\+")
        # White mated: the bar is Black's, the score the result.
        self.new_game(fen="rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3")
        self.until(lambda d: self.white_share() < 5,
                   lambda: f"mate shows as {self.white_share():.0f} %: {self.page_text()}")
        self.assertEqual(self.driver.find_element(By.ID, "score").text, "0-1")

    def test_errors_show_on_the_page(self):
        self.new_game(fen="not a fen", refused=True)
        error = self.driver.find_element(By.ID, "error")
        self.until(lambda d: error.is_displayed(), "no error shown")
        self.assertIn("bad FEN", error.text)


if __name__ == "__main__":
    unittest.main()
