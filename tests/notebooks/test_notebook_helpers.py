"""helpers.notebook: the reader's working copy and the progress line of model cells."""

import asyncio

from helpers.notebook import Progress, copy_course, progress


def test_working_copy_is_made_once_and_never_overwrites_a_readers_edits(tmp_path):
    source, dest = tmp_path / "notebooks", tmp_path / "notebooks-local"
    (source / "solutions").mkdir(parents=True)
    (source / "00_setup.ipynb").write_text("course 00")
    (source / "solutions" / "00_solutions.ipynb").write_text("course solutions")
    (source / ".ipynb_checkpoints").mkdir()
    (source / ".ipynb_checkpoints" / "00_setup-checkpoint.ipynb").write_text("checkpoint")

    copied = copy_course(dest, source)
    assert sorted(p.relative_to(dest).as_posix() for p in copied) == ["00_setup.ipynb",
                                                                      "solutions/00_solutions.ipynb"]
    (dest / "00_setup.ipynb").write_text("the reader's edits")
    (dest / "solutions" / "00_solutions.ipynb").unlink()  # reset one notebook by deleting it

    again = copy_course(dest, source)
    assert [p.relative_to(dest).as_posix() for p in again] == ["solutions/00_solutions.ipynb"]
    assert (dest / "00_setup.ipynb").read_text() == "the reader's edits"
    assert (dest / "solutions" / "00_solutions.ipynb").read_text() == "course solutions"


def test_progress_reports_elapsed_time_and_caps_the_bar_until_done():
    shown = Progress("turn 1", estimate_s=0.01, detail="900 prompt tokens")
    shown.started -= 5  # as if five seconds had passed
    assert shown.fraction() == 0.95 and shown.text() == "turn 1 (900 prompt tokens): 5 s of roughly 0 s"
    shown.finish()
    assert shown.fraction() == 1.0 and shown.text().startswith("turn 1 (900 prompt tokens): done in 5")
    assert "<progress" in shown.html()
    assert "of roughly" not in Progress("no estimate").text()


def test_progress_context_manager_finishes_even_when_the_work_fails():
    seen = []

    async def failing():
        async with progress("consolidation") as shown:
            seen.append(shown)
            raise RuntimeError("model went away")

    try:
        asyncio.run(failing())
    except RuntimeError:
        pass
    else:
        raise AssertionError("the error must propagate")
    assert seen[0].seconds is not None and seen[0].text().startswith("consolidation: done in")


def test_estimates_come_from_this_process_measured_speed_and_never_load_the_model(monkeypatch):
    from types import SimpleNamespace

    from helpers import llm
    from helpers.notebook import estimate_seconds, measured_speed

    monkeypatch.setattr(llm.engine, "_embedded", None)
    assert measured_speed() is None and estimate_seconds(500) is None
    assert llm.engine._embedded is None  # asking did not load the model
    record = SimpleNamespace(prompt_tokens=100, completion_tokens=20, prompt_seconds=2.0, generation_seconds=1.0)
    monkeypatch.setattr(llm.engine, "_embedded", SimpleNamespace(history=[record]))
    assert measured_speed() == (50.0, 20.0)
    assert estimate_seconds(500, calls=2, output_tokens=60) == 2 * 500 / 50 + 60 / 20


# --------------------------------------------------------------------------- `make lab`'s shared model server

FAKE_SERVER = """\
import sys, time
print("model server ready (1 slots): export AGENT_MEMORY_LLM_URL=http://127.0.0.1:9", flush=True)
sys.stdin.read()  # like the real one: leaves when the launcher closes its stdin
"""


def test_the_lab_starts_a_shared_server_only_without_a_key_or_a_server_already_running():
    from helpers.notebook import why_no_shared_server

    assert why_no_shared_server({}) is None
    assert "OPENAI_API_KEY" in why_no_shared_server({"OPENAI_API_KEY": "sk-x"})
    assert "http://127.0.0.1:5" in why_no_shared_server({"AGENT_MEMORY_LLM_URL": "http://127.0.0.1:5"})


def test_model_server_is_ready_when_it_prints_its_url_and_stops_when_asked(tmp_path):
    import sys

    from helpers.notebook import start_model_server

    server = start_model_server(command=[sys.executable, "-c", FAKE_SERVER], log=tmp_path / "server.log",
                                timeout=30)
    assert server.url == "http://127.0.0.1:9" and server.process.poll() is None
    server.stop(timeout=10)
    assert server.process.returncode == 0


def test_a_model_server_that_dies_before_it_is_ready_is_reported_with_its_log(tmp_path):
    import sys

    import pytest

    from helpers.notebook import start_model_server

    with pytest.raises(RuntimeError, match="exited .*no model here"):
        start_model_server(command=[sys.executable, "-c", "print('no model here'); raise SystemExit(3)"],
                           log=tmp_path / "server.log", timeout=30)


def test_banner_checks_the_shared_server_answers_and_serves_the_model_named(monkeypatch):
    import http.server
    import json
    import threading

    from helpers.llm import Backend
    from helpers.notebook import banner

    class Models(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            body = json.dumps({"models": [{"model": "/cache/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"}]})
            self.send_response(200)
            self.end_headers()
            self.wfile.write(body.encode())

        def log_message(self, *args):
            pass

    backend = Backend("embedded", "qwen2.5-coder-1.5b", "in-process")
    monkeypatch.delenv("AGENT_MEMORY_LLM_URL", raising=False)
    other = Backend("embedded", "qwen2.5-coder-0.5b", "in-process")
    assert banner(backend) == "Backend: embedded (qwen2.5-coder-1.5b). in-process"

    httpd = http.server.HTTPServer(("127.0.0.1", 0), Models)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{httpd.server_address[1]}"
    monkeypatch.setenv("AGENT_MEMORY_LLM_URL", url)
    try:
        shown, mismatch = banner(backend), banner(other)
    finally:
        httpd.shutdown()
        httpd.server_close()
    assert shown == "Backend: embedded (qwen2.5-coder-1.5b). in-process"  # it serves the model named
    assert mismatch.endswith("It serves qwen2.5-coder-1.5b-instruct-q4_k_m.gguf, not "
                             "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf.")
    assert "does NOT answer" in banner(backend)  # the server is gone


def test_the_backend_says_where_the_model_runs_and_nbval_reads_both_alike(monkeypatch):
    import configparser
    import re

    from helpers.llm import active_backend
    from helpers.paths import repo_root

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("AGENT_MEMORY_GGUF", raising=False)
    monkeypatch.delenv("AGENT_MEMORY_LLM_URL", raising=False)
    alone = active_backend()
    monkeypatch.setenv("AGENT_MEMORY_LLM_URL", "http://127.0.0.1:4321")
    shared = active_backend()
    assert alone.model_name == shared.model_name == "qwen2.5-coder-1.5b"
    assert "in-process" in alone.reason and "http://127.0.0.1:4321" in shared.reason
    rules = configparser.ConfigParser()
    rules.read(repo_root() / "tests" / "nbval_sanitize.cfg")

    def sanitized(text: str) -> str:
        for section in rules.sections():
            text = re.sub(rules[section]["regex"], rules[section]["replace"], text)
        return text

    assert sanitized(alone.reason) == sanitized(shared.reason)  # the committed outputs pass either way
    assert sanitized(alone.reason) != sanitized("No OPENAI_API_KEY; something else.")


def test_lab_points_jupyter_at_the_shared_server_and_stops_it_after(tmp_path, monkeypatch, capsys):
    import signal
    import sys

    from helpers.notebook import lab

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("AGENT_MEMORY_LLM_URL", raising=False)
    monkeypatch.setenv("AGENT_MEMORY_CACHE", str(tmp_path / "cache"))  # the server's log goes there
    monkeypatch.setenv("JUPYTER_DATA_DIR", str(tmp_path / "jupyter"))  # the trust database of this test
    handlers = {s: signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGHUP)}
    seen = tmp_path / "jupyter-saw.txt"
    fake_jupyter = [sys.executable, "-c", "import os, sys; open(sys.argv[1], 'w').write("
                    "os.environ.get('AGENT_MEMORY_LLM_URL', '') + ' ' + ' '.join(sys.argv[2:]))", str(seen)]
    (tmp_path / "course").mkdir()
    try:
        code = lab(tmp_path / "course", ["--allow-root"], jupyter=fake_jupyter,
                   server_command=[sys.executable, "-c", FAKE_SERVER])
    finally:
        for stop, handler in handlers.items():
            signal.signal(stop, handler)
    assert code == 0
    assert seen.read_text().startswith("http://127.0.0.1:9 ")  # every kernel inherits the URL
    # The printed URL opens notebook 00; kernels get CurveZMQ keys (no "without encryption" line).
    assert "--LabApp.default_url=/lab/tree/00_setup.ipynb --ServerApp.root_dir=" in seen.read_text()
    assert "--KernelManager.transport_encryption=auto" in seen.read_text()
    assert seen.read_text().endswith("--allow-root")
    import nbformat
    from nbformat.sign import NotebookNotary

    copied = nbformat.read(tmp_path / "course" / "00_setup.ipynb", as_version=4)
    assert NotebookNotary().check_signature(copied)  # trusted: JupyterLab says nothing of it
    shown = capsys.readouterr().out
    assert "Model server ready at http://127.0.0.1:9" in shown and shown.rstrip().endswith("Model server stopped.")

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")  # no local model at all
    try:
        lab(tmp_path / "course", [], jupyter=fake_jupyter, server_command=["false"])
    finally:
        for stop, handler in handlers.items():
            signal.signal(stop, handler)
    assert seen.read_text().startswith(" ")  # no URL: the kernels call OpenAI
    assert "OPENAI_API_KEY is set" in capsys.readouterr().out


def test_with_model_server_runs_the_command_on_one_shared_server_and_stops_it(tmp_path, monkeypatch, capsys):
    import sys

    from helpers.notebook import with_model_server

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("AGENT_MEMORY_LLM_URL", raising=False)
    monkeypatch.setenv("AGENT_MEMORY_CACHE", str(tmp_path / "cache"))
    seen = tmp_path / "saw.txt"
    command = [sys.executable, "-c", "import os, sys; open(sys.argv[1], 'w').write("
               "os.environ.get('AGENT_MEMORY_LLM_URL', '') + ' ' + os.environ.get('AGENT_MEMORY_LLM_KEY', ''));"
               " raise SystemExit(5)", str(seen)]
    code = with_model_server(command, server_command=[sys.executable, "-c", FAKE_SERVER])
    assert code == 5  # the command's own exit code, so make stops on a failed test run
    url, key = seen.read_text().split(" ")
    assert url == "http://127.0.0.1:9" and len(key) >= 40  # the server's secret, through the environment only
    with_model_server(command, server_command=[sys.executable, "-c", FAKE_SERVER])
    assert seen.read_text().split(" ")[1] != key  # a new secret per server
    assert "Model server ready at http://127.0.0.1:9" in capsys.readouterr().out

    monkeypatch.setenv("AGENT_MEMORY_LLM_URL", "http://127.0.0.1:7")  # already running: used as it is
    assert with_model_server(command, server_command=["false"]) == 5
    assert seen.read_text().startswith("http://127.0.0.1:7")
