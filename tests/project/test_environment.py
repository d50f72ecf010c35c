"""environment.yml (conda) and pyproject.toml (pip) must list the same packages and pins."""

import re
import tomllib

import yaml

from helpers.paths import repo_root


def _name_and_spec(requirement: str) -> tuple[str, str]:
    match = re.match(r"^\s*([A-Za-z0-9_.\-]+)\s*(.*)$", requirement)
    return match.group(1).lower().replace("_", "-"), match.group(2).replace(" ", "")


def pyproject_requirements() -> dict[str, str]:
    project = tomllib.loads((repo_root() / "pyproject.toml").read_text())["project"]
    requirements = project["dependencies"] + project["optional-dependencies"]["test"]
    return dict(_name_and_spec(r) for r in requirements)


def conda_requirements() -> dict[str, str]:
    env = yaml.safe_load((repo_root() / "environment.yml").read_text())
    found: dict[str, str] = {}
    for entry in env["dependencies"]:
        entries = entry["pip"] if isinstance(entry, dict) else [entry]
        for requirement in entries:
            name, spec = _name_and_spec(requirement)
            if name not in ("python", "pip"):
                found[name] = spec
    return found


def test_conda_and_pip_list_the_same_packages_with_the_same_pins():
    assert conda_requirements() == pyproject_requirements()
