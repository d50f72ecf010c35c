"""How much one model server gains from serving several clients at once (why `make test` shares one).

Starts the shared model server (`python -m helpers.notebook model-server`, 4 slots), then asks for
96 tokens from 1, 2 and 4 clients at once (different prompts, prefixes computed beforehand) and prints
the tokens per second decoded in all. Run it with nothing else on the machine:

    flock /tmp/embedded-model.lock .venv/bin/python benchmarks/bench_batching.py
"""

import json
import os
import threading
import time
import urllib.request

from helpers.llm.engine import auth_headers
from helpers.notebook import start_model_server

TOKENS = 96
SUBJECTS = ["cat", "dog", "fox", "owl"]


def complete(url: str, key: str, prompt: str, n: int) -> int:
    body = {"prompt": prompt, "n_predict": n, "temperature": 0, "seed": 1, "cache_prompt": True}
    request = urllib.request.Request(url + "/v1/completions", data=json.dumps(body).encode(),
                                     headers=auth_headers(key))  # the server wants its secret
    with urllib.request.urlopen(request, timeout=600) as response:
        return int(json.loads(response.read())["timings"]["predicted_n"])


def main() -> None:
    server = start_model_server(slots=len(SUBJECTS))
    try:
        prompts = [f"<|im_start|>user\nWrite a long story about a {s} who travels to Tokyo.<|im_end|>\n"
                   "<|im_start|>assistant\n" for s in SUBJECTS]
        for prompt in prompts:  # compute every prefix once, so only decoding is timed
            complete(server.url, server.key, prompt, 1)
        print(f"{os.cpu_count()} cores; {TOKENS} tokens per client")
        single = None
        for clients in (1, 2, 4):
            counts: list[int] = []
            threads = [threading.Thread(target=lambda p=p, out=counts: out.append(complete(server.url, server.key, p, TOKENS)))
                       for p in prompts[:clients]]
            started = time.perf_counter()
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            rate = sum(counts) / (time.perf_counter() - started)
            single = single or rate
            print(f"{clients} client(s) at once: {rate:5.1f} tokens/s decoded in all "
                  f"({rate / single:.2f}x one client)")
    finally:
        server.stop()


if __name__ == "__main__":
    main()
