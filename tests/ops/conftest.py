"""Fixtures for the deployment tests: the parsed Dockerfile and compose files,
and one replay of the Dockerfile's builder stage per test session."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from ._dockerfile import Dockerfile, parse
from ._replay import Replay, replay_stage

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def repo() -> Path:
    return REPO


@pytest.fixture(scope="session")
def dockerfile() -> Dockerfile:
    return parse((REPO / "Dockerfile").read_text())


@pytest.fixture(scope="session")
def compose() -> dict:
    return yaml.safe_load((REPO / "docker-compose.yml").read_text())


@pytest.fixture(scope="session")
def compose_caddy() -> dict:
    return yaml.safe_load((REPO / "deploy" / "docker-compose.caddy.yml").read_text())


@pytest.fixture(scope="session")
def builder_replay(dockerfile: Dockerfile, tmp_path_factory: pytest.TempPathFactory) -> Replay:
    """The builder stage run as written on this machine, in a fresh plain venv.

    Takes ~15 s with a warm pip cache (the first run downloads the
    dependencies). Session-scoped: every test that needs the built venv shares it.
    """
    stage = dockerfile.stage("builder")
    root = tmp_path_factory.mktemp("image-fs")
    return replay_stage(stage, REPO, root, dockerfile.global_args)
