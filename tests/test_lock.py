"""The lock (`constraints.txt`) covers what the tests run on, at the versions installed.

The README's commands install with `-c constraints.txt`; this test fails when a package that
`queryweave[dev]` needs (directly or through its dependencies) has no pin there, or when the installed
version is not the pinned one — so a lock that drifted from the environment it was tested in, or an
install made without it, fails the suite instead of surprising a user later. The README's quick start
itself is checked too: exactly two commands, both installing from the lock.
"""

from __future__ import annotations

import re
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[1]
LOCK = ROOT / "constraints.txt"


def read_lock(text: str) -> dict[str, str]:
    """`name==version` lines of a constraints file, by canonical name (comments and blanks skipped)."""
    pins: dict[str, str] = {}
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        name, sep, version = line.partition("==")
        if not sep:
            raise ValueError(f"not an exact pin: {line!r}")
        pins[canonicalize_name(name)] = version.strip()
    return pins


def requirement_closure(root: str, extras: set[str]) -> dict[str, str]:
    """Installed distributions reachable from `root[extras]`: canonical name -> installed version."""
    seen: dict[str, str] = {}
    todo: list[tuple[str, frozenset[str]]] = [(root, frozenset(extras))]
    done: set[tuple[str, frozenset[str]]] = set()
    while todo:
        name, wanted = todo.pop()
        if (name, wanted) in done:
            continue
        done.add((name, wanted))
        dist = metadata.distribution(name)
        seen[canonicalize_name(name)] = dist.version
        for raw in dist.requires or []:
            req = Requirement(raw)
            envs = [{"extra": e} for e in wanted] or [{"extra": ""}]
            if req.marker is not None and not any(req.marker.evaluate(env) for env in envs):
                continue
            todo.append((req.name, frozenset(req.extras)))
    return seen


def lock_problems(installed: dict[str, str], pins: dict[str, str], skip: set[str]) -> list[str]:
    """What is wrong between the installed closure and the lock, one line each."""
    problems = []
    for name, version in sorted(installed.items()):
        if name in skip:
            continue
        if name not in pins:
            problems.append(f"{name}=={version} is installed and needed but not pinned in constraints.txt")
        elif Version(version).public != Version(pins[name]).public:
            problems.append(f"{name}: installed {version}, pinned {pins[name]}")
    return problems


def test_lock_problems_are_reported():
    pins = read_lock("# header\nalpha==1.0\nbeta==2.0  # why\n")
    assert lock_problems({"alpha": "1.0", "beta": "2.0"}, pins, set()) == []
    assert lock_problems({"alpha": "1.0", "beta": "2.1", "gamma": "3"}, pins, set()) == [
        "beta: installed 2.1, pinned 2.0",
        "gamma==3 is installed and needed but not pinned in constraints.txt",
    ]
    assert lock_problems({"torch": "2.13.0+cpu"}, {"torch": "2.13.0"}, set()) == []  # local label ignored
    with pytest.raises(ValueError):
        read_lock("alpha>=1.0\n")


def test_installed_environment_matches_the_lock():
    pins = read_lock(LOCK.read_text(encoding="utf-8"))
    installed = requirement_closure("queryweave", {"dev"})
    assert len(installed) > 100  # the closure was really walked
    problems = lock_problems(installed, pins, skip={"queryweave"})
    assert not problems, "the environment drifted from the lock:\n" + "\n".join(problems)


def quick_start_commands(readme: str) -> list[str]:
    """The fenced shell commands of the README's Quick start section."""
    section = readme.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    return [block.strip() for block in re.findall(r"```bash\n(.*?)```", section, flags=re.S)]


def test_readme_quick_start_installs_from_the_lock():
    commands = quick_start_commands((ROOT / "README.md").read_text(encoding="utf-8"))
    assert len(commands) == 2
    for command in commands:
        assert "\n" not in command and command.startswith("pip install -c constraints.txt -e ")
    assert "python -m pytest" in commands[1]
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "quick_start_command" in ci  # CI runs the README's own second command, not a copy of it
