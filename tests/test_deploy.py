"""deploy/compose.yaml runs what the tests run: the Chroma server of the locked `chromadb`, PostgreSQL 15 (the
integration tests' cluster, tests/servers.py), and only settings that `Context` reads."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]


def test_compose_matches_the_lock_and_the_settings():
    compose = yaml.safe_load((ROOT / "deploy" / "compose.yaml").read_text())
    pins = dict(re.findall(r"^([A-Za-z0-9_.-]+)==(\S+)$", (ROOT / "constraints.txt").read_text(), re.M))
    services = compose["services"]
    assert services["chroma"]["image"] == f"chromadb/chroma:{pins['chromadb']}"
    assert services["postgres"]["image"] == "postgres:15"
    config = (ROOT / "queryweave" / "config.py").read_text()
    env = services["queryweave"]["environment"]
    for name in env:
        if name.startswith("QUERYWEAVE_"):
            assert f'_env("{name.removeprefix("QUERYWEAVE_")}"' in config, f"{name} is not a setting"
    assert env["QUERYWEAVE_DATABASE_URL"].startswith("postgresql://")
    assert "--workers" in services["queryweave"]["command"]
