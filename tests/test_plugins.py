"""The plugin seams: one table of entry-point groups, kept true to pyproject, the code and the docs."""

from __future__ import annotations

import importlib
import tomllib
from pathlib import Path

import pytest

from gateway.cli import BrokerPlugin
from gateway.plugins import SEAMS, Seam

ROOT = Path(__file__).resolve().parent.parent


def _declared_groups() -> set[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return set(project["entry-points"])


def _resolve(dotted: str) -> object:
    module, _, name = dotted.rpartition(".")
    return getattr(importlib.import_module(module), name)


def test_every_group_the_project_declares_is_a_seam_and_every_seam_is_used() -> None:
    assert {seam.group for seam in SEAMS} == _declared_groups()


@pytest.mark.parametrize("seam", SEAMS, ids=lambda s: s.group)
def test_every_seams_protocol_is_a_public_name_that_resolves(seam: Seam) -> None:
    protocol = seam.protocol
    assert not any(part.startswith("_") for part in protocol.split("."))
    assert isinstance(_resolve(protocol), type)


@pytest.mark.parametrize("seam", SEAMS, ids=lambda s: s.group)
def test_the_plugin_guide_has_a_section_for_every_seam(seam: Seam) -> None:
    guide = (ROOT / "docs" / "plugins.md").read_text(encoding="utf-8")
    assert f'[project.entry-points."{seam.group}"]' in guide


def test_the_broker_entry_point_is_a_broker_plugin() -> None:
    gateway_nats = pytest.importorskip("gateway_nats")
    from gateway.cli import broker_plugin

    # Checked by mypy too: the module satisfies the protocol as written.
    plugin: BrokerPlugin = gateway_nats
    assert isinstance(plugin, BrokerPlugin)
    assert broker_plugin() is gateway_nats


def test_a_module_without_the_brokers_members_is_not_a_broker_plugin() -> None:
    assert not isinstance(importlib.import_module("gateway_audit"), BrokerPlugin)
