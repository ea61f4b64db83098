"""The project's own lists of its plugins agree with the plugins/ folder, and every package is typed."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PLUGINS = sorted(p.name for p in (ROOT / "plugins").iterdir() if (p / "__init__.py").is_file())


def _pyproject() -> dict[str, Any]:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def _contract(contract_id: str) -> dict[str, Any]:
    contracts = _pyproject()["tool"]["importlinter"]["contracts"]
    return next(c for c in contracts if c["id"] == contract_id)


def test_the_wheel_ships_the_package_and_every_plugin_package() -> None:
    packages = _pyproject()["tool"]["hatch"]["build"]["targets"]["wheel"]["packages"]
    assert sorted(packages) == sorted(["gateway", *(f"plugins/{name}" for name in PLUGINS)])


def test_the_import_contracts_analyse_every_plugin() -> None:
    roots = _pyproject()["tool"]["importlinter"]["root_packages"]
    assert sorted(roots) == sorted(["gateway", *PLUGINS])


def test_the_core_is_forbidden_every_plugin() -> None:
    assert sorted(_contract("core-names-no-plugin")["forbidden_modules"]) == PLUGINS


def test_the_plugin_layers_place_every_plugin_once() -> None:
    placed = [
        name.strip()
        for layer in _contract("plugin-layers")["layers"]
        for name in layer.replace(":", "|").split("|")
    ]
    assert sorted(placed) == PLUGINS


def test_every_package_the_wheel_ships_is_marked_typed() -> None:
    untyped = [
        p
        for p in ["gateway", *(f"plugins/{n}" for n in PLUGINS)]
        if not (ROOT / p / "py.typed").is_file()
    ]
    assert untyped == []


def test_the_version_is_written_once_in_pyproject() -> None:
    """The code reads the version from the package metadata; no module spells it again."""
    import gateway

    version = _pyproject()["project"]["version"]
    assert gateway.__version__ == version
    spelled = [
        str(path.relative_to(ROOT))
        for folder in ("gateway", "plugins")
        for path in (ROOT / folder).rglob("*.py")
        if f'"{version}"' in path.read_text(encoding="utf-8")
    ]
    assert spelled == []


def test_only_one_module_puts_an_error_message_on_one_line() -> None:
    """Collapsing an error's message into a clause is gateway.text.error_detail's job alone."""
    spelled = [
        str(path.relative_to(ROOT))
        for folder in ("gateway", "plugins")
        for path in (ROOT / folder).rglob("*.py")
        if '" ".join(str(' in path.read_text(encoding="utf-8")
    ]
    assert spelled == []
