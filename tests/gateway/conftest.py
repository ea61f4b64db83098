"""
Fixtures for the gateway tests: every async test runs under asyncio and under trio.

This directory is deliberately not a package: as ``tests/gateway/__init__.py``
it would be imported as ``gateway`` and shadow the real package. Its modules
therefore carry a ``test_gateway_`` prefix, and shared helpers live in
``gateway_support``.
"""

from __future__ import annotations

import pytest


@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request: pytest.FixtureRequest) -> str:
    """Run each async test once per backend."""
    backend: str = request.param
    return backend
