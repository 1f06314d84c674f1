"""Fixtures: one real `vernier serve` for the whole session, a client of it,
and a fresh study name per test."""

from __future__ import annotations

import itertools
import re
from typing import Iterator

import pytest

import vernier

_counter = itertools.count(1)


@pytest.fixture(scope="session")
def server() -> Iterator[vernier.LocalServer]:
    """`vernier serve --port 0` from the build tree (VERNIER_BUILD_DIR), with
    a temporary data directory."""
    local = vernier.LocalServer()
    local.start()
    yield local
    local.stop()


@pytest.fixture
def client(server: vernier.LocalServer) -> Iterator[vernier.Client]:
    with vernier.Client(server.target) as connected:
        yield connected


@pytest.fixture
def study_name(request: pytest.FixtureRequest) -> str:
    """A study name no other test uses, derived from the test's name."""
    base = re.sub(r"[^A-Za-z0-9_-]", "_", request.node.name)[:100]
    return f"t{next(_counter)}_{base}"
