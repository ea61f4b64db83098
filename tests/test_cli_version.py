"""``gateway --version``, and ``--version`` after every subcommand, core and plugin."""

from __future__ import annotations

from importlib.metadata import version

import pytest

from gateway._cli import build_parser, main

EXPECTED = f"gateway (agent-gateway) {version('agent-gateway')}\n"


def _subcommands() -> list[str]:
    parser = build_parser()
    choices = next(
        action.choices
        for action in parser._actions  # argparse keeps its subparsers only there
        if action.dest == "command"
    )
    assert choices is not None
    return sorted(choices)


def test_gateway_version_prints_the_installed_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["--version"])
    assert stopped.value.code == 0
    assert capsys.readouterr().out == EXPECTED


@pytest.mark.parametrize("name", _subcommands())
def test_every_subcommand_takes_version(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        main([name, "--version"])
    assert stopped.value.code == 0
    assert capsys.readouterr().out == EXPECTED


@pytest.mark.parametrize(
    "words", [["rules", "test"], ["token", "create"], ["audit", "export"], ["config", "show"]]
)
def test_actions_under_a_subcommand_take_version_too(
    words: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stopped:
        main([*words, "--version"])
    assert stopped.value.code == 0
    assert capsys.readouterr().out == EXPECTED


def test_there_are_core_and_plugin_subcommands() -> None:
    assert {"plan", "check", "parse", "verify", "serve", "rules", "install"} <= set(_subcommands())
