"""
The fleet tests share one real nats-server per session (each test uses buckets of its own prefix).

Tests that stop the broker start a server of their own (`own_nats`).
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from pathlib import Path

import pytest

from broker.nats_server import NatsServer


@pytest.fixture(scope="session")
def nats_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[NatsServer]:
    """One nats-server with JetStream for the whole session; fails the session when it cannot start."""
    server = NatsServer(store=tmp_path_factory.mktemp("nats"))
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def own_nats(tmp_path: Path) -> Iterator[NatsServer]:
    """A nats-server for one test alone (it may stop and start it)."""
    server = NatsServer(store=tmp_path / "nats")
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def prefix() -> str:
    """A bucket and stream prefix no other test uses."""
    return "t" + secrets.token_hex(6)
