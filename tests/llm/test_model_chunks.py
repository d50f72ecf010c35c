"""The model's chunk packages: hash-pinned at install, read as files, never imported."""

import hashlib
import re
import sys
import tomllib
from base64 import urlsafe_b64encode

import pytest

from helpers.llm import EMBEDDED_MODELS, EmbeddedModelSpec, ModelFileError, join_model_chunks
from helpers.paths import repo_root

CHUNKS = [b"GGUF" + b"a" * 60, b"b" * 64, b"tail"]


def record_hash(data: bytes) -> str:
    return "sha256=" + urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def install_fake_chunks(site, prefix="fakechunk_part", version="0.1.0", chunks=CHUNKS):
    """Installed chunk packages as pip leaves them: code, a data file, and a RECORD with hashes.
    Importing any of them writes a marker file, so a test can tell whether their code ran."""
    marker = site / "imported"
    for i, data in enumerate(chunks, start=1):
        package, dist_info = site / f"{prefix}{i}", site / f"{prefix}{i}-{version}.dist-info"
        (package / "data").mkdir(parents=True)
        (package / "data" / f"part{i:02d}.bin").write_bytes(data)
        code = (f"open({str(marker)!r}, 'a').write('{i}')\n"
                "def get_part_path():\n    raise AssertionError('chunk code ran')\n")
        (package / "__init__.py").write_text(code)
        dist_info.mkdir()
        (dist_info / "METADATA").write_text(
            f"Metadata-Version: 2.1\nName: {prefix.replace('_', '-')}{i}\nVersion: {version}\n")
        (dist_info / "RECORD").write_text(
            f"{prefix}{i}/__init__.py,{record_hash(code.encode())},{len(code)}\n"
            f"{prefix}{i}/data/part{i:02d}.bin,{record_hash(data)},{len(data)}\n"
            f"{dist_info.name}/METADATA,,\n{dist_info.name}/RECORD,,\n")
    return marker


def fake_spec(version="0.1.0"):
    joined = b"".join(CHUNKS)
    return EmbeddedModelSpec(name="fake-model", package_prefix="fakechunk_part", parts=len(CHUNKS),
                             version=version, sha256=hashlib.sha256(joined).hexdigest())


@pytest.fixture
def site(tmp_path, monkeypatch):
    site = tmp_path / "site"
    site.mkdir()
    monkeypatch.syspath_prepend(str(site))
    yield site
    for name in [m for m in sys.modules if m.startswith("fakechunk_part")]:
        del sys.modules[name]


def test_chunks_are_joined_from_their_data_files_without_running_their_code(site, tmp_path):
    marker = install_fake_chunks(site)
    target = join_model_chunks(fake_spec(), tmp_path / "cache" / "fake.gguf")
    assert target.read_bytes() == b"".join(CHUNKS)
    assert not marker.exists(), "a chunk package's code ran"
    assert not [m for m in sys.modules if m.startswith("fakechunk_part")]


def test_a_chunk_changed_after_install_is_refused_and_nothing_is_left(site, tmp_path):
    install_fake_chunks(site)
    (site / "fakechunk_part2" / "data" / "part02.bin").write_bytes(b"x" * 64)
    with pytest.raises(ModelFileError, match="part02.bin changed after it was installed"):
        join_model_chunks(fake_spec(), tmp_path / "cache" / "fake.gguf")
    assert list((tmp_path / "cache").iterdir()) == []


def test_a_missing_or_wrong_version_chunk_names_the_hash_checked_install(site, tmp_path):
    install_fake_chunks(site, chunks=CHUNKS[:2])
    with pytest.raises(ModelFileError, match=r"missing fakechunk-part3.*--require-hashes.*fake-model\.txt"):
        join_model_chunks(fake_spec(), tmp_path / "fake.gguf")
    with pytest.raises(ModelFileError, match="0.1.0 is installed, but 0.2.0 is pinned"):
        join_model_chunks(fake_spec(version="0.2.0"), tmp_path / "fake.gguf")


REQUIREMENT = re.compile(r"^([a-z0-9-]+)==(\S+) \\\n    --hash=sha256:([0-9a-f]{64})$", re.M)


@pytest.mark.parametrize("key", sorted(EMBEDDED_MODELS))
def test_every_chunk_is_pinned_by_version_and_wheel_hash(key):
    spec = EMBEDDED_MODELS[key]
    text = (repo_root() / "requirements" / f"{spec.name}.txt").read_text()
    pins = REQUIREMENT.findall(text)
    prefix = spec.package_prefix.replace("_", "-")
    assert [(name, version) for name, version, _ in pins] == [
        (f"{prefix}{i}", spec.version) for i in range(1, spec.parts + 1)]
    assert len({h for _, _, h in pins}) == spec.parts
    body = [line for line in text.splitlines() if line and not line.startswith("#")]
    assert len(body) == 2 * spec.parts  # nothing else, nothing unhashed


def test_the_setup_installs_the_model_with_hash_checking_and_nothing_installs_it_unhashed():
    makefile = (repo_root() / "Makefile").read_text()
    default = EMBEDDED_MODELS["qwen2.5-coder-1.5b"]
    assert f"MODEL_REQUIREMENTS := requirements/{default.name}.txt" in makefile
    assert "PIP := $(BIN)/python -m pip" in makefile
    assert "$(PIP) install --require-hashes --no-deps -r $(MODEL_REQUIREMENTS)" in makefile
    project = tomllib.loads((repo_root() / "pyproject.toml").read_text())["project"]
    listed = project["dependencies"] + [r for extra in project["optional-dependencies"].values() for r in extra]
    assert not [r for r in listed if r.startswith(default.package_prefix.replace("_", "-"))]
