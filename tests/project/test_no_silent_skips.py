"""No silent skips: a browser or model test that cannot run fails under CI=true, and a reader's
run ends by naming what did not run and the command that installs it."""

import importlib
import os
import shutil
import subprocess
import sys

from helpers.paths import repo_root

INNER_TESTS = '''
import pytest

@pytest.mark.browser
def test_drives_the_lab():
    assert True

@pytest.mark.model
@pytest.mark.skipif(True, reason="the embedded model is missing")
def test_on_the_model():
    assert True

@pytest.mark.model
def test_runs():
    assert True
'''


def run_inner(tmp_path, **env):
    """A pytest run of a small suite under this repository's conftest, without chromium."""
    shutil.copy(repo_root() / "tests" / "conftest.py", tmp_path / "conftest.py")
    (tmp_path / "test_inner.py").write_text(INNER_TESTS)
    (tmp_path / "pytest.ini").write_text("[pytest]\nmarkers =\n    model: m\n    browser: b\n")
    environ = {k: v for k, v in os.environ.items() if k != "CI"}
    # No plugin autoload: the inner run needs none, and loading them all takes seconds.
    environ.update(AGENT_MEMORY_CHROMIUM=str(tmp_path / "no-chromium"), PYTEST_DISABLE_PLUGIN_AUTOLOAD="1",
                   **env)
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", str(tmp_path)],
                          cwd=tmp_path, env=environ, capture_output=True, text=True, timeout=120)


def test_without_chromium_a_reader_is_told_what_did_not_run_and_how_to_install_it(tmp_path):
    result = run_inner(tmp_path)
    assert result.returncode == 0, result.stdout
    assert "tests that did not run" in result.stdout
    assert "test_inner.py::test_drives_the_lab: Debian's chromium is not at" in result.stdout
    assert "test_inner.py::test_on_the_model: the embedded model is missing" in result.stdout
    assert "To run them: sudo apt-get install chromium" in result.stdout


def test_under_ci_a_browser_or_model_test_that_cannot_run_fails_the_run(tmp_path):
    result = run_inner(tmp_path, CI="true")
    assert result.returncode == 1, result.stdout
    assert "1 passed" in result.stdout and "2 error" in result.stdout, result.stdout
    assert "CI=true requires every browser and model test to run" in result.stdout
    assert "chromium is not at" in result.stdout and "the embedded model is missing" in result.stdout


def test_the_embedded_model_tests_run_when_an_openai_key_is_set(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-used")
    module = importlib.reload(importlib.import_module("tests.llm.test_llm_embedded"))
    marks = module.pytestmark if isinstance(module.pytestmark, list) else [module.pytestmark]
    assert [m.name for m in marks] == ["model"]
    assert not any(m.name == "skipif" for f in vars(module).values() for m in getattr(f, "pytestmark", []))


def test_ci_script_fails_on_a_failed_install_and_installs_postgresql():
    script = (repo_root() / ".ci" / "run").read_text()
    assert "set -euo pipefail" in script
    assert "|| echo" not in script and "|| true" not in script
    assert "apt-get install" in script and "postgresql" in script and "chromium" in script


def test_python_version_claim_matches_what_the_code_needs():
    import tomllib  # noqa: F401  (3.11+: the reason for the claim)

    pyproject = (repo_root() / "pyproject.toml").read_text()
    assert 'requires-python = ">=3.11"' in pyproject
    assert "3.11 or newer" in (repo_root() / "README.md").read_text()
    assert "python>=3.11" in (repo_root() / "environment.yml").read_text()
