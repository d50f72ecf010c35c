"""The model server is locked: its secret on every endpoint, no CORS, no web UI, no slots (real xllamacpp).

Starts a small EmbeddedLLM of its own (one slot, 512 tokens of context): ~10 s.
"""

import json
import urllib.error
import urllib.request

import pytest

from helpers.llm import EmbeddedLLM, RemoteServer, resolve_model_file

pytestmark = pytest.mark.model


@pytest.fixture(scope="module")
def engine():
    return EmbeddedLLM(resolve_model_file(), n_ctx=512, slots=1, threads=1)


def send(engine, method, path, body=None, headers=None):
    request = urllib.request.Request(engine._server.listening_address + path, method=method,
                                     data=None if body is None else json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json", **(headers or {})})
    try:
        with urllib.request.urlopen(request, timeout=120) as response:
            return response.status, response.headers, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read()


COMPLETION = {"prompt": "Hello", "n_predict": 2}


def test_an_unauthenticated_request_is_refused_and_an_authenticated_one_answered(engine):
    for path, body in (("/v1/completions", COMPLETION), ("/apply-template", {"messages": []}),
                       ("/tokenize", {"content": "x"})):
        assert send(engine, "POST", path, body)[0] == 401, path
        assert send(engine, "POST", path, body, {"Authorization": "Bearer wrong"})[0] == 401, path
    status, _, text = send(engine, "POST", "/v1/completions", COMPLETION,
                           {"Authorization": f"Bearer {engine.api_key}"})
    assert status == 200 and json.loads(text)["choices"]
    assert engine.count_tokens("hello world") > 0  # the engine sends its own secret
    other = EmbeddedLLM(resolve_model_file(), server=RemoteServer(engine._server.listening_address, engine.api_key))
    assert other.tokenize("hello") == engine.tokenize("hello")  # a kernel given the secret is answered


def test_no_origin_is_allowed_and_the_ui_and_slots_are_off(engine):
    auth = {"Authorization": f"Bearer {engine.api_key}"}
    _, headers, _ = send(engine, "OPTIONS", "/v1/completions", None,
                         {"Origin": "http://evil.example", "Access-Control-Request-Method": "POST"})
    assert headers.get("Access-Control-Allow-Origin", "") in ("",)  # a browser reads nothing cross-origin
    assert headers.get("Access-Control-Allow-Credentials", "false") == "false"
    assert send(engine, "GET", "/", None, auth)[0] == 404  # no web UI
    assert send(engine, "GET", "/slots", None, auth)[0] == 501  # no slots endpoint (prompts of others)
