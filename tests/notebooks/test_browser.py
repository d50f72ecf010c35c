"""The course in a real browser: JupyterLab in headless Chromium runs notebook 00 top to bottom,
notebook 04, whose prompt inspector must render and follow a selection, and a reader's chat with the
concierge in the chat widget (type, send, see progress, the answer and the exact prompt), with the
kernel on a shared model server as `make lab` runs it. Notebook 00 replays its recorded model
replies (tests/replay_plugin.py) unless pytest runs with --model-replies=live, and so does the
chat's scroll test (two typed messages, replies recorded beside this file in
chat_scroll.replies.json); the other chat test and the inspector run the live model for now
(marked `model`). To record the scroll test's replies again (the live model, on the shared server):

    RECORD_CHAT_REPLIES=1 .venv/bin/python -m pytest -m browser tests/notebooks/test_browser.py -k second_answer

Slow (the notebooks run the real model, about 1-3 minutes each) and needs Debian's chromium at
/usr/bin/chromium plus pip's playwright (never `playwright install`); .ci/run installs chromium.
Locally, run it under the model lock:

    flock /tmp/embedded-model.lock .venv/bin/python -m pytest -m browser tests/notebooks/test_browser.py

Set INSPECTOR_SCREENSHOT=/some/file.png or CHAT_SCREENSHOT=... to keep the screenshots.
"""

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import nbformat
import pytest

from helpers.llm.engine import KEY_VARIABLE
from helpers.notebook import start_model_server, why_no_shared_server
from helpers.paths import repo_root
from tests.conftest import CHROMIUM
from tests.replay import FACTORY_ENV, HASH_SEED, RECORD_FACTORY, REPLIES_ENV, replies_path
from tests.replay_plugin import LIVE_ONLY, replay_env, replaying

NOTEBOOK = "04_hooks_and_injection.ipynb"
SETUP_NOTEBOOK = "00_setup.ipynb"
CHAT_NOTEBOOK = "chat.ipynb"  # made by the fixture: the chat widget on the example state, as in notebook 00
CHAT_SCROLL_NOTEBOOK = "chat_scroll.ipynb"  # the same cell; its typed turns are recorded beside this file
CHAT_SCROLL_PATH = Path(__file__).with_name(CHAT_SCROLL_NOTEBOOK)  # never written: names the replies file
CHAT_SCROLL_REPLIES = replies_path(CHAT_SCROLL_PATH)
RECORDING_CHAT = os.environ.get("RECORD_CHAT_REPLIES") == "1"
CHATS = (CHAT_NOTEBOOK, CHAT_SCROLL_NOTEBOOK)
CHAT_CELL = """\
from helpers.chat import ChatWidget
from helpers.notebook import setup
from helpers.state import load_example_state

env = setup()
state = load_example_state()
state.pinned_now = env.now
chat = ChatWidget(state, model=env.model)
chat.show()"""
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]
RUN_ALL_SECONDS = 900  # the notebook runs the real model on 2 shared cores

# Where chromium or playwright is missing, tests/conftest.py skips these with the install command,
# and fails them under CI=true.
pytestmark = pytest.mark.browser

try:
    from playwright import sync_api
except ImportError:  # reported by tests/conftest.py before any test here runs
    sync_api = None


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def lab(tmp_path, request):
    """JupyterLab on 127.0.0.1 with a token, serving a temp copy of the notebook (its outputs stay untouched)."""
    name = getattr(request, "param", NOTEBOOK)
    root, settings = tmp_path / "root", tmp_path / "settings"
    root.mkdir()
    # Without the committed outputs, every prompt starts blank, so "all cells ran" means this run.
    if name in CHATS:
        notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(CHAT_CELL)], metadata={
            "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}})
    else:
        notebook = nbformat.read(repo_root() / "notebooks" / name, as_version=4)
    for cell in notebook.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    nbformat.write(notebook, root / name)
    # Render every cell (no windowing), so the test sees all outputs, not only the ones on screen.
    tracker = settings / "@jupyterlab" / "notebook-extension" / "tracker.jupyterlab-settings"
    tracker.parent.mkdir(parents=True)
    tracker.write_text(json.dumps({"windowingMode": "none"}))
    news = settings / "@jupyterlab" / "apputils-extension" / "notification.jupyterlab-settings"
    news.parent.mkdir(parents=True)
    news.write_text(json.dumps({"fetchNews": "false"}))  # no network, no toast over the screenshot
    port, token = free_port(), os.urandom(12).hex()
    env = {**os.environ, "JUPYTER_CONFIG_DIR": str(tmp_path / "config"), "JUPYTER_RUNTIME_DIR": str(tmp_path / "rt")}
    live = name == CHAT_NOTEBOOK or not replaying(request.config) or (name == CHAT_SCROLL_NOTEBOOK and RECORDING_CHAT)
    if not live:  # the notebook's recorded replies, no model
        notebook_path = CHAT_SCROLL_PATH if name == CHAT_SCROLL_NOTEBOOK else repo_root() / "notebooks" / name
        env = {k: v for k, v in env.items() if k not in LIVE_ONLY} | replay_env(notebook_path)
    elif name == CHAT_SCROLL_NOTEBOOK and RECORDING_CHAT:  # the live model, every reply recorded
        env |= {FACTORY_ENV: RECORD_FACTORY, REPLIES_ENV: str(CHAT_SCROLL_REPLIES), **HASH_SEED,
                "PYTHONPATH": os.pathsep.join(p for p in (str(repo_root()), env.get("PYTHONPATH")) if p)}
    model_server = None
    if name in CHATS and live and why_no_shared_server() is None:
        # As `make lab` runs it: one model server, which every kernel reaches through AGENT_MEMORY_LLM_URL
        # (under `make test` that server is already running, and every kernel here inherits its URL).
        model_server = start_model_server(log=tmp_path / "model-server.log")
        env["AGENT_MEMORY_LLM_URL"] = model_server.url
        env[KEY_VARIABLE] = model_server.key
    server = subprocess.Popen(
        [sys.executable, "-m", "jupyter", "lab", "--no-browser", "--ServerApp.ip=127.0.0.1",
         f"--ServerApp.port={port}", "--ServerApp.port_retries=0", f"--IdentityProvider.token={token}",
         f"--ServerApp.root_dir={root}", f"--LabApp.user_settings_dir={settings}",
         f"--LabApp.workspaces_dir={tmp_path / 'workspaces'}", "--LabApp.expose_app_in_browser=True",
         "--allow-root"],  # CI containers often run as root
        cwd=root, env=env, stdout=subprocess.DEVNULL, stderr=open(tmp_path / "lab.log", "wb"),
        start_new_session=True)  # its own process group: the kernel goes down with it
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=2)
                break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"JupyterLab did not start: {(tmp_path / 'lab.log').read_text()[-2000:]}")
                time.sleep(0.5)
        yield f"{base}/lab/tree/{name}?token={token}"
    finally:
        if server.poll() is None:
            os.killpg(server.pid, signal.SIGTERM)
            try:
                server.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(server.pid, signal.SIGKILL)
        if model_server is not None:
            model_server.stop()


KERNEL_STATUS = "() => window.jupyterapp?.shell.currentWidget?.sessionContext?.session?.kernel?.status"
ALL_CELLS_RAN = ("[...document.querySelectorAll('.jp-CodeCell .jp-InputPrompt')]"
                 ".every(p => /\\[\\d+\\]/.test(p.innerText))")


def run_all(browser, url: str):
    """Open the notebook, Run All, and wait until every cell has run and the kernel is idle."""
    page = browser.new_page()
    page.goto(url)
    page.wait_for_function(f"({KERNEL_STATUS})() === 'idle'", timeout=120_000)
    page.evaluate("window.jupyterapp.commands.execute('runmenu:run-all')")
    page.wait_for_function(f"() => ({KERNEL_STATUS})() === 'idle' && {ALL_CELLS_RAN}",
                           timeout=RUN_ALL_SECONDS * 1000)
    assert page.locator(".jp-OutputArea-output", has_text="Traceback").count() == 0
    return page


@pytest.mark.parametrize("lab", [SETUP_NOTEBOOK], indirect=True)
def test_setup_notebook_runs_top_to_bottom_as_a_reader_would(lab, tmp_path):
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch_persistent_context(
            str(tmp_path / "chromium"), executable_path=str(CHROMIUM), headless=True, args=FLAGS)
        try:
            page = run_all(browser, lab)
            outputs = page.locator(".jp-OutputArea-output")
            assert outputs.filter(has_text="Backend: ").count() >= 1
            assert outputs.filter(has_text="model call(s) in this turn").count() >= 1
            assert outputs.filter(has_text="refused: model.gguf has 1,004 bytes").count() >= 1
        finally:
            browser.close()


# On the live model only for now: under replay, choosing "turn 2" does not update the title within
# 30 s (not diagnosed yet; notebook 04 itself replays and compares exactly under nbval).
@pytest.mark.model
def test_inspector_renders_and_follows_a_selection(lab, tmp_path):
    screenshot = Path(os.environ.get("INSPECTOR_SCREENSHOT", tmp_path / "inspector.png"))
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch_persistent_context(
            str(tmp_path / "chromium"), executable_path=str(CHROMIUM), headless=True, args=FLAGS,
            viewport={"width": 1400, "height": 1000})
        try:
            page = run_all(browser, lab)
            inspector = page.locator(".jupyter-widgets.prompt-inspector")

            prompt = inspector.locator(".inspector-prompt")
            turn, call, section = (inspector.locator("select").nth(i) for i in range(3))
            assert "<memory_policy>" in prompt.inner_text()

            section.select_option(label="session_memory")
            page.wait_for_function("el => !el.innerText.includes('<memory_policy>')", arg=prompt.element_handle(),
                                   timeout=30_000)
            shown = prompt.inner_text()
            assert shown.startswith("<session_memory>") and "SESSION memory" in shown

            title = inspector.locator(".inspector-title")
            assert "turn 1, call 0" in title.inner_text()
            turn.select_option(label="turn 2")
            page.wait_for_function("el => el.innerText.includes('turn 2, call 0')", arg=title.element_handle(),
                                   timeout=30_000)
            assert prompt.inner_text().startswith("<session_memory>")  # the section choice is kept
            assert call.locator("option").count() >= 1

            inspector.scroll_into_view_if_needed()
            page.screenshot(path=str(screenshot))
        finally:
            browser.close()
    assert screenshot.stat().st_size > 10_000


@pytest.mark.model  # a typed message has no recording: the live model answers it
@pytest.mark.parametrize("lab", [CHAT_NOTEBOOK], indirect=True)
def test_chat_widget_answers_a_typed_message_and_shows_the_exact_prompt(lab, tmp_path):
    screenshot = Path(os.environ.get("CHAT_SCREENSHOT", tmp_path / "chat.png"))
    message = "I always want an aisle seat. What's the capital of Portugal?"
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch_persistent_context(
            str(tmp_path / "chromium"), executable_path=str(CHROMIUM), headless=True, args=FLAGS,
            viewport={"width": 1400, "height": 1100})
        try:
            page = run_all(browser, lab)
            if not os.environ.get("OPENAI_API_KEY"):  # the kernel uses the shared server, and says so
                assert page.locator(".jp-OutputArea-output", has_text="on the shared model server").count() == 1
            chat = page.locator(".jupyter-widgets.chat-widget")
            assert "No messages yet" in chat.locator(".chat-transcript").inner_text()
            chat.locator(".chat-input textarea").fill(message)
            chat.locator("button.chat-send").click()

            status = chat.locator(".chat-status")
            page.wait_for_function("el => el.innerText.includes('the model is working')",
                                   arg=status.element_handle(), timeout=30_000)
            assert "prompt ≈" in status.inner_text()  # the prompt's size, while the model works
            transcript = chat.locator(".chat-transcript")
            page.wait_for_function("el => el.innerText.includes('concierge:')", arg=transcript.element_handle(),
                                   timeout=RUN_ALL_SECONDS * 1000)
            shown = transcript.inner_text()
            assert message in shown and "answered in" in status.inner_text()
            answer = chat.locator(".chat-answer").inner_text().removeprefix("concierge:").strip()
            assert answer

            chat.locator(".lm-TabBar-tab", has_text="exact prompt").click()
            prompt = chat.locator(".inspector-prompt")
            page.wait_for_function("el => el.innerText.includes('<memory_policy>')", arg=prompt.element_handle(),
                                   timeout=30_000)
            assert "turn 1" in chat.locator(".inspector-title").inner_text()
            assert "Maya Chen" in prompt.inner_text()  # the example user's profile, injected
            chat.scroll_into_view_if_needed()
            page.screenshot(path=str(screenshot))
        finally:
            browser.close()
    assert screenshot.stat().st_size > 10_000


@pytest.mark.parametrize("lab", [CHAT_SCROLL_NOTEBOOK], indirect=True)  # replays chat_scroll.replies.json
def test_chat_shows_the_second_answer_without_scrolling(lab, tmp_path):
    screenshot = Path(os.environ.get("CHAT_SCROLL_SCREENSHOT", tmp_path / "chat-scroll.png"))
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch_persistent_context(
            str(tmp_path / "chromium"), executable_path=str(CHROMIUM), headless=True, args=FLAGS,
            viewport={"width": 900, "height": 1100})  # narrow: two exchanges outgrow the 24em box
        try:
            page = run_all(browser, lab)
            chat = page.locator(".jupyter-widgets.chat-widget")
            transcript = chat.locator(".chat-transcript")
            for n, message in enumerate(["I always want an aisle seat on long flights, I am vegetarian, I travel with "
                                         "my partner Alex, and I like hotels near the old town with a quiet room.",
                                         "Which seat and which meal should you book for me?"], 1):
                chat.locator(".chat-input textarea").fill(message)
                chat.locator("button.chat-send").click()
                status = chat.locator(".chat-status")
                page.wait_for_function(  # the turn ends: its answer shows, or an error in the status line
                    "([el, status, n]) => el.querySelectorAll('.chat-answer').length >= n"
                    " || status.innerText.includes('Error')",
                    arg=[transcript.element_handle(), status.element_handle(), n], timeout=RUN_ALL_SECONDS * 1000)
                assert transcript.locator(".chat-answer").count() == n, status.inner_text()
            # The turn is over (replayed, the widget may still re-render its transcript just after).
            page.wait_for_function("el => el.innerText.includes('answered in')",
                                   arg=chat.locator(".chat-status").element_handle(), timeout=30_000)
            # The newest answer lies inside the transcript's visible box, with no scrolling by the reader.
            box = transcript.evaluate("""el => {
                const answers = el.querySelectorAll('.chat-answer');
                const last = answers[answers.length - 1].getBoundingClientRect(), view = el.getBoundingClientRect();
                return {top: last.top - view.top, bottom: view.bottom - last.bottom,
                        overflowing: el.scrollHeight > el.clientHeight};
            }""")
            # Bring the box on screen for the screenshot: the page scrolls, not the box (looked up
            # afresh, since a re-render may have replaced the element).
            page.evaluate("() => [...document.querySelectorAll('.chat-transcript')].pop()"
                          ".scrollIntoView({block: 'nearest'})")
            page.screenshot(path=str(screenshot))
            assert box["overflowing"], "the two exchanges should outgrow the 24em box for this test to mean anything"
            assert box["top"] >= -1 and box["bottom"] >= -1, box
        finally:
            browser.close()
    assert screenshot.stat().st_size > 10_000
