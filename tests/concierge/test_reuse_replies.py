"""benchmarks/reuse_replies.py: a request already answered is answered from the file, never twice by the model."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[2]))

from benchmarks.reuse_replies import ReusingServer, counts
from tests.replay import Recordings


class FakeServer:
    listening_address = "fake"

    def __init__(self):
        self.asked = []

    def handle_completions(self, request, callback):
        self.asked.append(request["prompt"])
        for text in (f"reply to {request['prompt']}", "!"):
            if callback({"choices": [{"text": text}]}):
                return


def chunks_of(server, prompt):
    got = []
    server.handle_completions({"prompt": prompt, "max_tokens": 8}, lambda chunk: got.append(chunk) and False)
    return got


def test_a_repeated_request_is_served_from_the_file_and_a_new_one_reaches_the_model(tmp_path):
    live = FakeServer()
    recordings = Recordings(tmp_path / "replies.json", model="fake")
    server = ReusingServer(live, recordings)
    before = counts()
    first = chunks_of(server, "Find me a flight")
    again = chunks_of(server, "Find me a flight")
    other = chunks_of(server, "Find me a hotel")
    assert live.asked == ["Find me a flight", "Find me a hotel"]
    assert again == first and first[0]["choices"][0]["text"] == "reply to Find me a flight"
    assert other[0]["choices"][0]["text"] == "reply to Find me a hotel"
    assert (counts()[0] - before[0], counts()[1] - before[1]) == (1, 2)
    # A restarted run reads the file back and asks the model nothing it already asked.
    restarted = ReusingServer(FakeServer(), Recordings.load(tmp_path / "replies.json"))
    assert chunks_of(restarted, "Find me a hotel") == other and restarted.server.asked == []
