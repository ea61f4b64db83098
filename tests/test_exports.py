"""The public surface: everything `gateway` exports is listed in a sorted `__all__`, and nothing else."""

from __future__ import annotations

from types import ModuleType

import pytest

import gateway
import gateway.audit
import gateway.bounded
import gateway.cli
import gateway.effects
import gateway.fleet
import gateway.plugins
import gateway.text

NAMESPACES = [
    gateway,
    gateway.audit,
    gateway.bounded,
    gateway.cli,
    gateway.effects,
    gateway.fleet,
    gateway.plugins,
    gateway.text,
]
# gateway.testing is a module of helpers, not a namespace of re-exports: it is not listed.


@pytest.mark.parametrize("namespace", NAMESPACES, ids=lambda n: n.__name__)
def test_all_is_sorted_with_constants_first(namespace: ModuleType) -> None:
    names = list(namespace.__all__)
    assert names == sorted(names, key=lambda n: (not n.isupper(), n[0].islower(), n))


@pytest.mark.parametrize("namespace", NAMESPACES, ids=lambda n: n.__name__)
def test_all_lists_exactly_the_public_names(namespace: ModuleType) -> None:
    public = {name for name in vars(namespace) if not name.startswith("_")}
    modules = {name for name in public if type(getattr(namespace, name)).__name__ == "module"}
    assert set(namespace.__all__) == public - modules


@pytest.mark.parametrize("namespace", NAMESPACES, ids=lambda n: n.__name__)
def test_every_exported_name_resolves_and_is_documented(namespace: ModuleType) -> None:
    for name in namespace.__all__:
        value = getattr(namespace, name)
        alias = type(value).__module__ == "typing"  # a Literal set, documented where it is defined
        if callable(value) and not alias and not isinstance(value, type(gateway.PLAN_RENDER_LIMIT)):
            assert getattr(value, "__doc__", None), f"{name} has no docstring"
