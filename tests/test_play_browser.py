"""The play page in a real browser: headless Chromium driven by selenium (Debian's chromium and
chromium-driver packages; nothing is downloaded).

Each game is played to the end of a turn, hand, game or round by clicking, with a hint asked for
and an illegal move sent from the page (refused, with the server's message shown); two tabs play
two games at once; malformed requests sent from the page get 4xx and change nothing.  Screenshots go
to the test's output folder (``tmp_path``); the four of the README (``analysis/play/screenshots``:
Shut the Box's finished game with its score and the costliest decisions, the others mid-game with a
hint) also to ``$LUDOLAB_SCREENSHOTS`` when that is set, which is how they are made:

    LUDOLAB_SCREENSHOTS=analysis/play/screenshots python -m pytest -q -m slow \
        tests/test_play_browser.py -k in_the_browser
"""

from __future__ import annotations

import os
import shutil
import threading
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

HOW = ("install Debian's chromium and chromium-driver packages (`apt-get install chromium chromium-driver`, "
       "as root; .ci/run does it) to run the play page's browser tests")


def _driver_paths():
    drv = "/usr/bin/chromedriver" if os.path.exists("/usr/bin/chromedriver") else shutil.which("chromedriver")
    browser = next((shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome") if shutil.which(n)), None)
    return drv, browser


@pytest.fixture(scope="module")
def server():
    from werkzeug.serving import make_server

    from ludolab.analysis.play.server import create_app

    app = create_app()
    srv = make_server("127.0.0.1", 0, app, threaded=True)
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    yield f"http://127.0.0.1:{srv.server_port}/", app
    srv.shutdown()


@pytest.fixture(scope="module")
def browser():
    drv, binary = _driver_paths()
    if not drv or not binary:
        pytest.skip(HOW)
    pytest.importorskip("selenium", reason="pip install selenium (the test extra) to run the browser tests")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    os.environ.setdefault("SE_OFFLINE", "true")  # never let selenium's manager fetch a driver or browser

    opts = webdriver.ChromeOptions()
    opts.binary_location = binary
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1000,700",
              "--hide-scrollbars"):
        opts.add_argument(a)
    d = webdriver.Chrome(service=Service(executable_path=drv), options=opts)
    d.set_script_timeout(600)
    yield d
    d.quit()


def _idle(d, timeout=600):
    end = time.time() + timeout
    while time.time() < end:
        if d.execute_script("return document.body.dataset.ready === '1' && document.body.dataset.busy === '0'"):
            return
        time.sleep(0.05)
    raise AssertionError("the page stayed busy")


def _start(d, url, game, variant, players, bot):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    d.get(url)
    _idle(d)
    Select(d.find_element(By.ID, "game")).select_by_value(game)
    Select(d.find_element(By.ID, "variant")).select_by_value(variant)
    Select(d.find_element(By.ID, "players")).select_by_value(str(players))
    Select(d.find_element(By.ID, "bot")).select_by_value(bot)
    d.find_element(By.ID, "start").click()
    time.sleep(0.1)
    _idle(d)
    assert d.execute_script("return ludolabPlay.gameId()"), d.find_element(By.ID, "message").text


def _to_a_choice(d):
    """Play the only legal action until a decision has two or more (the deal is random)."""
    while d.execute_script("return document.body.dataset.over") != "1":
        buttons = d.find_elements("css selector", "#actions button.act")
        if len(buttons) != 1:
            return
        buttons[0].click()
        time.sleep(0.02)
        _idle(d)


def _hint(d):
    from selenium.webdriver.common.by import By

    d.find_element(By.ID, "hintbtn").click()
    time.sleep(0.1)
    _idle(d)
    rows = d.find_elements(By.CSS_SELECTOR, "#hinttable tr")
    assert len(rows) >= 2, d.find_element(By.ID, "hint").text
    text = d.find_element(By.ID, "hint").text
    assert "95% CI" in text and "Budget" in text
    return text


def _illegal(d):
    from selenium.webdriver.common.by import By

    before = d.execute_script("return ludolabPlay.last().steps")
    d.execute_script("ludolabPlay.move(987654)")
    time.sleep(0.1)
    _idle(d)
    msg = d.find_element(By.ID, "message")
    assert msg.is_displayed() and "not legal" in msg.text, msg.text
    assert d.execute_script("return ludolabPlay.last().steps") == before


def _click_to_end(d, choose, limit=400):
    from selenium.webdriver.common.by import By

    for _ in range(limit):
        if d.execute_script("return document.body.dataset.over") == "1":
            return
        lay = d.find_elements(By.CSS_SELECTOR, "#actions button.lay")
        buttons = lay or d.find_elements(By.CSS_SELECTOR, "#actions button.act")
        assert buttons, d.find_element(By.ID, "status").text
        choose(buttons).click()
        time.sleep(0.02)
        _idle(d)
        msg = d.find_element(By.ID, "message")
        assert not msg.is_displayed(), msg.text
    raise AssertionError("the game did not end")


def _shot(d, tmp_path, game, readme=True):
    """Save the page as ``play-GAME.png`` in ``tmp_path`` and, for a README picture, as ``GAME.png`` in
    ``$LUDOLAB_SCREENSHOTS`` (when set), once the review (if any) is in."""
    from selenium.webdriver.common.by import By

    _idle(d)
    d.execute_script("window.scrollTo(0, 0)")
    if d.find_elements(By.CSS_SELECTOR, "#review h3"):
        end = time.time() + 300
        while "reviewing" in d.find_element(By.ID, "review").text and time.time() < end:
            time.sleep(0.2)
    path = tmp_path / f"play-{game}.png"
    d.save_screenshot(str(path))
    assert path.stat().st_size > 1000
    extra = os.environ.get("LUDOLAB_SCREENSHOTS")
    if extra and readme:
        Path(extra).mkdir(parents=True, exist_ok=True)
        _small_png(path, Path(extra) / f"{game}.png")
    return path


def _small_png(src, dest):
    """Copy a screenshot as a 256-colour PNG (a third of the size, the page's few colours kept; Pillow
    comes with matplotlib), or as it is without Pillow."""
    try:
        from PIL import Image
    except ImportError:
        shutil.copy(src, dest)
        return
    with Image.open(src) as im:
        im.convert("RGB").quantize(colors=256, method=Image.Quantize.FASTOCTREE,
                                   dither=Image.Dither.NONE).save(dest, optimize=True)


def _first(buttons):
    return buttons[0]


def test_shut_the_box_turn_in_the_browser(server, browser, tmp_path):
    url, _ = server
    _start(browser, url, "box", "standard-1-round", 1, "optimal")
    _to_a_choice(browser)
    if browser.execute_script("return document.body.dataset.over") == "1":  # a deal with no choice: deal again
        _start(browser, url, "box", "standard-1-round", 1, "optimal")
        _to_a_choice(browser)
    text = _hint(browser)
    assert "exact" in text
    _illegal(browser)
    _click_to_end(browser, _first)
    assert "The match is over" in browser.find_element("id", "status").text
    _shot(browser, tmp_path, "box")


def test_shut_the_books_hand_in_the_browser(server, browser, tmp_path):
    url, _ = server
    _start(browser, url, "books", "rulebook-one-hand", 3, "heuristic/heuristic")
    # the forecast: pick two cards of the hand, then lay them
    picks = browser.find_elements("css selector", "#actions .card.pick")
    assert len(picks) == 16
    _illegal(browser)
    picks[0].click()
    picks[-1].click()
    browser.find_element("css selector", "#actions button.lay").click()
    time.sleep(0.1)
    _idle(browser)
    assert "Your turn" in browser.find_element("id", "status").text
    _hint(browser)
    _shot(browser, tmp_path, "books")
    _click_to_end(browser, _first)
    assert "after hand 1" in browser.find_element("id", "scores").text
    _shot(browser, tmp_path, "books-end", readme=False)


def test_shelve_the_book_game_in_the_browser(server, browser, tmp_path):
    url, _ = server
    _start(browser, url, "shelf", "standard", 2, "greedy")
    _illegal(browser)
    for _ in range(6):  # a few books on the shelves first, so the picture shows a game under way
        browser.find_elements("css selector", "#actions button.act")[0].click()
        time.sleep(0.02)
        _idle(browser)
    _hint(browser)
    _shot(browser, tmp_path, "shelf")
    _click_to_end(browser, _first)
    assert "15 books shelved" in browser.find_element("id", "view").text
    _shot(browser, tmp_path, "shelf-end", readme=False)


def test_beverbende_round_in_the_browser(server, browser, tmp_path):
    url, _ = server
    _start(browser, url, "beverbende", "one-round", 2, "threshold")
    _illegal(browser)
    _hint(browser)
    _shot(browser, tmp_path, "beverbende")

    def knock_soon(buttons):  # knock at the first chance, so the round ends quickly (BVB-9)
        for b in buttons:
            t = b.text.lower()
            if "knock" in t and not any(w in t for w in ("don't", "not", "no ")):
                return b
        return buttons[0]
    _click_to_end(browser, knock_soon)
    assert "The game is over" in browser.find_element("id", "status").text
    _shot(browser, tmp_path, "beverbende-end", readme=False)


def test_two_tabs_play_two_games(server, browser):
    url, app = server
    d = browser
    _start(d, url, "box", "standard-3-rounds", 2, "random")
    first = d.execute_script("return ludolabPlay.gameId()")
    first_tab = d.current_window_handle
    view1 = d.execute_script("return JSON.stringify(ludolabPlay.last().view)")
    d.switch_to.new_window("tab")
    _start(d, url, "box", "standard-3-rounds", 2, "random")
    second = d.execute_script("return ludolabPlay.gameId()")
    assert second != first
    d.find_elements("css selector", "#actions button.act")[0].click()
    time.sleep(0.1)
    _idle(d)
    assert app.config["GAMES"][second].actions != []
    d.close()
    d.switch_to.window(first_tab)
    assert d.execute_script("return ludolabPlay.gameId()") == first
    again = d.execute_async_script(
        "const done = arguments[0]; fetch('/api/game/' + ludolabPlay.gameId()).then(r => r.json())"
        ".then(p => done(JSON.stringify(p.view)));")
    assert again == view1


def test_a_malformed_request_from_the_page_gets_4xx_and_changes_nothing(server, browser):
    url, app = server
    d = browser
    _start(d, url, "box", "standard-1-round", 2, "optimal")
    gid = d.execute_script("return ludolabPlay.gameId()")
    s = app.config["GAMES"][gid]
    before = s.state.copy()
    codes = d.execute_async_script(
        "const done = arguments[0]; const id = ludolabPlay.gameId();"
        "const post = (path, body) => fetch(path, {method: 'POST', headers: {'Content-Type': 'application/json'},"
        " body}).then(r => r.status);"
        "Promise.all([post('/api/game/' + id + '/move', '{not json'), post('/api/game/' + id + '/move', '{}'),"
        " post('/api/game/' + id + '/move', '{\"action\": \"7\"}'), post('/api/game/nope/move', '{\"action\": 1}'),"
        " post('/api/new', '{\"game\": \"chess\"}')]).then(done);")
    assert codes == [400, 400, 400, 404, 400]
    assert (s.state == before).all() and s.actions == []


def test_each_other_seat_gets_the_bot_chosen_for_it(server, browser):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    d = browser
    url, _ = server
    d.get(url)
    _idle(d)
    Select(d.find_element(By.ID, "game")).select_by_value("books")
    Select(d.find_element(By.ID, "variant")).select_by_value("rulebook-one-hand")
    Select(d.find_element(By.ID, "players")).select_by_value("3")
    Select(d.find_element(By.ID, "seat")).select_by_value("1")
    Select(d.find_element(By.ID, "bot")).select_by_value("heuristic/heuristic")
    per = d.find_elements(By.CSS_SELECTOR, "#seatbots select.seatbot")
    assert [p.get_attribute("data-seat") for p in per] == ["0", "2"]
    Select(per[1]).select_by_value("random/random")
    d.find_element(By.ID, "start").click()
    time.sleep(0.1)
    _idle(d)
    assert d.execute_script("return ludolabPlay.last().bots") == ["heuristic/heuristic", None, "random/random"]
    assert d.execute_script("return ludolabPlay.last().seat") == 1


def test_the_hint_button_shows_only_while_a_game_is_running(server, browser):
    """No Hint (and no record link) before a game starts; Hint at the person's decisions; the record,
    not Hint, once the game is over."""
    from selenium.webdriver.common.by import By

    d = browser
    url, _ = server
    d.get(url)
    _idle(d)
    hint, record = d.find_element(By.ID, "hintbtn"), d.find_element(By.ID, "record")
    assert not hint.is_displayed() and not record.is_displayed()
    d.execute_script("ludolabPlay.hint()")  # even called from the page's script: refused, nothing sent
    assert "start a game first" in d.find_element(By.ID, "message").text
    assert not d.find_element(By.ID, "hint").is_displayed()
    _start(d, url, "box", "standard-1-round", 1, "optimal")  # the page loads afresh
    hint, record = d.find_element(By.ID, "hintbtn"), d.find_element(By.ID, "record")
    assert hint.is_displayed() and hint.is_enabled() and not record.is_displayed()
    _click_to_end(d, _first)
    assert not hint.is_displayed() and record.is_displayed()


def test_the_beverbende_hint_works_under_win_count_scoring(server, browser):
    """Win-count scoring counts rounds won (BVB-15): the hint's values are the rounds won, highest first."""
    d = browser
    url, _ = server
    _start(d, url, "beverbende", "win-count", 2, "threshold")
    _to_a_choice(d)
    text = _hint(d)
    assert "rounds won (higher is better)" in text
    vals = [float(x) for x in d.execute_script(
        "return Array.from(document.querySelectorAll('#hinttable tr td:nth-child(2)')).map(t => t.textContent)")]
    assert vals == sorted(vals, reverse=True) and all(v >= 0 for v in vals)
