"""Record and replay (tests/replay.py): a replay gives what the recording got, and a request with
no recording (a changed prompt) fails with the message that says to run `make notebooks`.

The SDK-level tests record through a small fake llama.cpp server on loopback (its template,
tokenizer and streamed completion endpoints), so they run in a second without the model; the last
test replays notebook 00's committed recording under nbval, as `make test` does.
"""

import json
import os
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import nbformat
import pytest
from agents import Agent, Runner

from helpers.llm import LocalModel, RemoteServer
from helpers.paths import repo_root
from tests.replay import (
    FACTORY_ENV, REPLIES_ENV, RERECORD, MissingRecording, RecordingLLM, Recordings, ReplayLLM, model_name,
    replaying_engine, replies_path,
)
from tests.replay_plugin import environment

ANSWER = "Lisbon is the capital of Portugal."


class FakeLlamaServer(BaseHTTPRequestHandler):
    """llama.cpp's endpoints the engine uses, answering the same way every time."""

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        if self.path == "/apply-template":
            prompt = "".join(f"<{m['role']}>{m.get('content')}\n" for m in body["messages"]) + "<assistant>"
            return self._json({"prompt": prompt})
        if self.path == "/tokenize":
            return self._json({"tokens": list(range(len(body["content"].split())))})
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        words = ANSWER.split(" ")
        for i, word in enumerate(words):
            text = word if i == 0 else " " + word
            self.wfile.write(f"data: {json.dumps({'choices': [{'text': text}]})}\n\n".encode())
        timings = {"prompt_n": 40, "cache_n": 2, "predicted_n": len(words), "prompt_ms": 120.0, "predicted_ms": 60.0}
        self.wfile.write(f"data: {json.dumps({'choices': [], 'timings': timings})}\n\n".encode())
        self.wfile.write(b"data: [DONE]\n\n")

    def _json(self, reply):
        data = json.dumps(reply).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


@pytest.fixture
def fake_server():
    server = ThreadingHTTPServer(("127.0.0.1", 0), FakeLlamaServer)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def record(url: str, path, instructions: str = "Answer in one sentence.") -> str:
    recordings = Recordings(path, model=model_name())
    engine = RecordingLLM(path, RemoteServer(url), recordings)
    assert engine.count_tokens("three words here") == 3
    return ask(engine, instructions)


def ask(engine, instructions: str) -> str:
    agent = Agent(name="capital", instructions=instructions, model=LocalModel(engine))
    return Runner.run_sync(agent, "What's the capital of Portugal?").final_output


def test_a_replay_answers_as_the_recording_did_without_a_model(fake_server, tmp_path):
    path = tmp_path / "nb.replies.json"
    assert record(fake_server, path) == ANSWER
    replay = ReplayLLM(Recordings.load(path))
    assert ask(replay, "Answer in one sentence.") == ANSWER
    assert replay.count_tokens("three words here") == 3
    [completion] = replay.history
    assert (completion.prompt_tokens, completion.cached_tokens, completion.completion_tokens) == (42, 2, 6)
    assert completion.prompt_seconds == pytest.approx(0.12)
    assert "REPLAYING recorded replies" in replay.backend_reason


def test_a_changed_prompt_without_a_new_recording_fails_and_says_to_run_make_notebooks(fake_server, tmp_path):
    path = tmp_path / "nb.replies.json"
    record(fake_server, path)
    with pytest.raises(MissingRecording, match="run `make notebooks`"):
        ask(ReplayLLM(Recordings.load(path)), "Answer in one short sentence.")
    with pytest.raises(MissingRecording, match="run `make notebooks`"):
        ReplayLLM(Recordings.load(path)).count_tokens("four words are here")


def test_the_file_is_readable_json_in_a_stable_order(fake_server, tmp_path):
    first, second = tmp_path / "a.replies.json", tmp_path / "b.replies.json"
    record(fake_server, first)
    record(fake_server, second)
    a, b = json.loads(first.read_text()), json.loads(second.read_text())
    assert a["model"] == model_name() and a["requests"] == b["requests"]
    assert [r["endpoint"] for r in a["requests"]] == ["/tokenize", "/apply-template", "/v1/completions"]
    assert first.read_text().count("\n") > 20  # indented, so a diff shows what changed


def test_a_request_made_twice_gets_its_replies_in_order(tmp_path):
    recordings = Recordings(tmp_path / "r.json", model=model_name())
    recordings.add("/tokenize", {"content": "x"}, {"n_tokens": 1})
    recordings.add("/tokenize", {"content": "x"}, {"n_tokens": 2})
    replay = Recordings.load(tmp_path / "r.json")
    assert [replay.reply("/tokenize", {"content": "x"})["n_tokens"] for _ in range(3)] == [1, 2, 2]


def test_a_recording_of_another_model_or_a_missing_file_is_refused(tmp_path):
    path = tmp_path / "r.json"
    with environment({FACTORY_ENV: "tests.replay:replaying_engine", REPLIES_ENV: str(path)}):
        with pytest.raises(MissingRecording, match=f"No recorded model replies at r.json: {RERECORD}"):
            replaying_engine()
        Recordings(path, model="another-model.gguf").save()
        with pytest.raises(MissingRecording, match="recorded on another-model.gguf"):
            replaying_engine()


def nbval(notebook) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "tests.replay_plugin", "-x", "-q",
         "--nbval", "--nbval-sanitize-with", str(repo_root() / "tests" / "nbval_sanitize.cfg"), str(notebook)],
        cwd=repo_root(), env=env, capture_output=True, text=True, timeout=600)


def test_notebook_00_with_a_changed_prompt_fails_under_nbval_and_says_to_run_make_notebooks(tmp_path):
    """As `make test` runs it: the committed recording replays; a changed concierge role does not."""
    source = repo_root() / "notebooks" / "00_setup.ipynb"
    notebook = nbformat.read(source, as_version=4)
    copy = tmp_path / source.name
    replies = replies_path(copy)
    replies.write_text(replies_path(source).read_text())
    nbformat.write(notebook, copy)
    unchanged = nbval(copy)
    assert unchanged.returncode == 0, unchanged.stdout[-3000:]

    [cell] = [c for c in notebook.cells if "agent = make_concierge(model=env.model)" in c.source]
    cell.source = cell.source.replace("make_concierge(model=env.model)",
                                      'make_concierge(model=env.model, base="You are a travel concierge.")')
    nbformat.write(notebook, copy)
    changed = nbval(copy)
    assert changed.returncode == 1, changed.stdout[-3000:]
    assert "No recorded reply for this" in changed.stdout and RERECORD in changed.stdout, changed.stdout[-3000:]
