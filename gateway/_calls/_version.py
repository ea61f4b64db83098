"""
The gateway's version: read once from the installed distribution's metadata, written nowhere else.

``pyproject.toml`` holds the one version string; everything that states a
version (``gateway --version``, the ``gateway.started`` event, the OTLP
resource, the approval service's ``/v1/health``) reads it from here.
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version
from typing import Final

__all__ = ["DISTRIBUTION", "VERSION"]

DISTRIBUTION: Final = "agent-gateway"
"""The distribution's name, as pip knows it."""


def _installed() -> str:
    try:
        return version(DISTRIBUTION)
    except PackageNotFoundError:  # run from a source tree that was never installed
        return "unknown (not installed)"


VERSION: Final = _installed()
"""The installed version (``unknown (not installed)`` from a source tree that was never installed)."""
