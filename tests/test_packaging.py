"""The three dependency files agree: pyproject.toml's ranges (what a user's environment may satisfy), the lock
constraints.txt (the exact set tested here, which the bootstrap installs) and environment.yml (the conda route)."""

from __future__ import annotations

import re
import sys
import tomllib
from importlib import metadata
from pathlib import Path

import pytest
import yaml
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[1]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def lock() -> dict[str, Version]:
    pins: dict[str, Version] = {}
    for raw in (ROOT / "constraints.txt").read_text().splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        match = re.fullmatch(r"([A-Za-z0-9_.\-]+)==([^\s;]+)", line)
        assert match, f"constraints.txt: {line!r} is not an exact pin (name==version)"
        pins[canonicalize_name(match[1])] = Version(match[2])
    return pins


def requirements() -> list[tuple[str, Requirement]]:
    """(where, requirement) for the core dependencies and every extra, self-references left out."""
    found = [("dependencies", Requirement(line)) for line in PROJECT["dependencies"]]
    for extra, lines in PROJECT["optional-dependencies"].items():
        found += [(f"[{extra}]", Requirement(line)) for line in lines]
    return [(where, r) for where, r in found if canonicalize_name(r.name) != "rlworkbench"]


def environment_pip() -> list[str]:
    conda = yaml.safe_load((ROOT / "environment.yml").read_text())
    (pip,) = [entry["pip"] for entry in conda["dependencies"] if isinstance(entry, dict)]
    return pip


@pytest.mark.parametrize(("where", "requirement"), requirements(), ids=str)
def test_the_lock_satisfies_every_range_of_pyproject(where: str, requirement: Requirement) -> None:
    pins = lock()
    name = canonicalize_name(requirement.name)
    assert name in pins, f"pyproject {where} asks for {requirement}; constraints.txt does not pin it"
    assert requirement.specifier.contains(pins[name], prereleases=True), (
        f"pyproject {where}: {requirement} excludes the locked {name}=={pins[name]}")


def test_the_ranges_are_ranges_and_python_311_to_313_is_allowed() -> None:
    exact = [f"{where}: {r}" for where, r in requirements() if any(s.operator in ("==", "===") for s in r.specifier)]
    assert not exact, f"library dependencies must be ranges, not pins: {exact}"
    python = SpecifierSet(PROJECT["requires-python"])
    assert all(python.contains(v) for v in ("3.11.7", "3.12.4", "3.13.1")), python


def test_the_environment_the_tests_run_in_is_the_lock() -> None:
    """What `make test` installed is what the lock says (a stale .venv or a hand-installed upgrade shows here)."""
    pins, drift = lock(), []
    for name, version in pins.items():
        try:
            installed = Version(metadata.version(name))
        except metadata.PackageNotFoundError:
            drift.append(f"{name} missing")
            continue
        if Version(installed.public) != version:
            drift.append(f"{name} {installed} (lock: {version})")
    assert not drift, "the venv differs from constraints.txt: " + ", ".join(drift)


def test_environment_yml_installs_the_lock_and_agrees_with_both() -> None:
    pip = environment_pip()
    assert "-c constraints.txt" in pip, "environment.yml must install through the lock"
    assert "-e .[all,dev]" in pip
    pins = lock()
    for line in pip:
        if line.startswith("-"):
            continue
        requirement = Requirement(line)
        name = canonicalize_name(requirement.name)
        assert name in pins and requirement.specifier.contains(pins[name]), f"environment.yml {line} vs the lock"
    conda = yaml.safe_load((ROOT / "environment.yml").read_text())
    (python,) = [d for d in conda["dependencies"] if isinstance(d, str) and d.startswith("python=")]
    assert SpecifierSet(PROJECT["requires-python"]).contains(python.split("=")[1] + ".0")


def test_the_lock_is_written_for_a_python_the_project_supports() -> None:
    assert SpecifierSet(PROJECT["requires-python"]).contains(".".join(map(str, sys.version_info[:3])))


def test_one_version_for_the_package_and_its_lab_extension() -> None:
    import json

    import rlworkbench

    assert "version" in PROJECT["dynamic"], "the version is read from rlworkbench.__version__, written nowhere else"
    package = json.loads((ROOT / "extensions" / "rlworkbench-lab" / "package.json").read_text())
    assert package["version"] == rlworkbench.__version__
    assert f"## {rlworkbench.__version__}" in (ROOT / "CHANGELOG.md").read_text()
