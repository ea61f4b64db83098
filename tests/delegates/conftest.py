"""Fixtures of the delegate tests: every async test runs under asyncio and under trio."""

from __future__ import annotations

import pytest


@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request: pytest.FixtureRequest) -> str:
    """Each backend the gateway supports."""
    return str(request.param)
