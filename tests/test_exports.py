"""The public surface: everything `gateway` exports is listed in a sorted `__all__`, and nothing else."""

from __future__ import annotations

import gateway


def test_all_is_sorted_with_constants_first() -> None:
    names = list(gateway.__all__)
    assert names == sorted(names, key=lambda n: (not n.isupper(), n[0].islower(), n))


def test_all_lists_exactly_the_public_names() -> None:
    public = {name for name in vars(gateway) if not name.startswith("_")}
    modules = {name for name in public if type(getattr(gateway, name)).__name__ == "module"}
    assert set(gateway.__all__) == public - modules


def test_every_exported_name_resolves_and_is_documented() -> None:
    for name in gateway.__all__:
        value = getattr(gateway, name)
        if callable(value) and not isinstance(value, type(gateway.PLAN_RENDER_LIMIT)):
            assert getattr(value, "__doc__", None), f"{name} has no docstring"
