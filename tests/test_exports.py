"""
The public surface: a small root, and every other public name in exactly one namespace.

Each public module lists its names in a sorted `__all__`, and nothing else;
no name (and no class or function under another name) is exported from two
public places, so a reader finds each in one place.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections import defaultdict
from types import ModuleType

import pytest

import gateway

PUBLIC = [
    importlib.import_module(f"gateway.{info.name}")
    for info in pkgutil.iter_modules(gateway.__path__)
    if not info.name.startswith("_")
]
NAMESPACES = [gateway, *(module for module in PUBLIC if module.__name__ != "gateway.testing")]
# gateway.testing is a module of helpers, not a namespace of re-exports: its
# `__all__` names what it defines, beside the names it imports to define them.
ROOT_LIMIT = 30


def test_the_namespaces_are_the_ones_the_root_docstring_lists() -> None:
    listed = {module.__name__ for module in PUBLIC}
    assert {"gateway.events", "gateway.plans", "gateway.config", "gateway.testing"} <= listed
    for name in listed:
        assert f"`{name}`" in (gateway.__doc__ or ""), (
            f"{name} is missing from the root's docstring"
        )


def test_the_root_holds_about_thirty_names() -> None:
    """What a host or an approver needs; the rest is in the namespaces (docs/design.md says which)."""
    assert len(gateway.__all__) <= ROOT_LIMIT
    assert {"Gateway", "ToolCall", "Verdict", "Approver", "GatewayConfig", "load_config"} <= set(
        gateway.__all__
    )
    assert isinstance(gateway.__version__, str)


def test_no_name_is_exported_from_two_public_places() -> None:
    places: defaultdict[str, list[str]] = defaultdict(list)
    objects: defaultdict[int, list[str]] = defaultdict(list)
    for namespace in [gateway, *PUBLIC]:
        for name in namespace.__all__:
            places[name].append(namespace.__name__)
            value = getattr(namespace, name)
            if isinstance(value, type) or callable(value):
                objects[id(value)].append(f"{namespace.__name__}.{name}")
    assert {name: where for name, where in places.items() if len(where) > 1} == {}
    assert [where for where in objects.values() if len(where) > 1] == []


@pytest.mark.parametrize("namespace", [gateway, *PUBLIC], ids=lambda n: n.__name__)
def test_all_is_sorted_with_constants_first(namespace: ModuleType) -> None:
    names = list(namespace.__all__)
    assert names == sorted(names, key=lambda n: (not n.isupper(), n[0].islower(), n))


@pytest.mark.parametrize("namespace", NAMESPACES, ids=lambda n: n.__name__)
def test_all_lists_exactly_the_public_names(namespace: ModuleType) -> None:
    public = {name for name in vars(namespace) if not name.startswith("_")}
    modules = {name for name in public if type(getattr(namespace, name)).__name__ == "module"}
    assert set(namespace.__all__) == public - modules


@pytest.mark.parametrize("namespace", [gateway, *PUBLIC], ids=lambda n: n.__name__)
def test_every_exported_name_resolves_and_is_documented(namespace: ModuleType) -> None:
    for name in namespace.__all__:
        value = getattr(namespace, name)
        alias = type(value).__module__ == "typing"  # a Literal set, documented where it is defined
        if callable(value) and not alias and not isinstance(value, int | str):
            assert getattr(value, "__doc__", None), f"{name} has no docstring"
