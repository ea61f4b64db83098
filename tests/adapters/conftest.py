"""Fixtures of the adapter tests."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from adapters.scripted import ScriptApprover
from gateway import Gateway


@pytest.fixture
def anyio_backend() -> str:
    """The hosts (the agent SDKs, LangGraph, MCP clients) run on asyncio, so the adapters do too."""
    return "asyncio"


@pytest.fixture
async def gateway() -> AsyncIterator[Gateway]:
    """An open gateway whose only approver is the scripted one."""
    async with Gateway(approvers=[ScriptApprover()]) as opened:
        yield opened
