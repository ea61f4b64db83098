"""
The ``gateway`` command.

The core subcommands (``plan``, ``check``, ``explain``, ``parse``, ``verify``, ``keygen``, ``audit``,
``policy``, ``settings``, ``token``) live beside this module; every other one comes from a plugin through the
``gateway.commands`` entry-point group (``serve`` from the approval service,
``rules`` from the rules approver, ``hook``, ``install``, ``uninstall`` and
``doctor`` from the hook hosts), loaded exactly as a third-party plugin's
would be, and only when it is asked for (or listed by ``--help``). This
module names no plugin. Every subcommand prints JSON on stdout for data and
one sentence on stderr for errors, and returns an exit status: 0 for success,
1 for a negative answer (a broken audit chain), 2 for bad input or usage.
A reader that stops reading (``gateway check | head``) ends the command as
it ends a Unix tool: quietly, with status 141 (128 + SIGPIPE).
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
from collections.abc import Iterable, Sequence
from functools import cache
from importlib.metadata import EntryPoint, entry_points
from typing import Any, Final

from gateway._calls._version import DISTRIBUTION, VERSION
from gateway._cli import (
    _audit,
    _check,
    _explain,
    _parse,
    _plan,
    _policy,
    _run,
    _settings,
    _token,
    _verify,
)
from gateway._cli._common import COMMAND_GROUP, CommandError, Subcommand

__all__ = ["build_parser", "main"]

CORE: Final = (
    _plan.COMMAND,
    _check.COMMAND,
    _run.COMMAND,
    _explain.COMMAND,
    _parse.COMMAND,
    _verify.COMMAND,
    _verify.KEYGEN,
    _audit.COMMAND,
    _policy.COMMAND,
    _settings.COMMAND,
    _token.COMMAND,
)
"""The subcommands that are part of the core, in the order ``--help`` lists them."""


def _plugin_commands(wanted: str | None) -> Iterable[Subcommand]:
    """The plugins' subcommands: only ``wanted`` when a word names one, else all of them."""
    core = {command.name for command in CORE}
    found: dict[str, EntryPoint] = {}
    for entry in entry_points(group=COMMAND_GROUP):
        if entry.name not in core:
            found.setdefault(entry.name, entry)
    names = [wanted] if wanted in found else sorted(found)
    for name in names:
        try:
            command = found[name].load()
        except Exception as error:  # noqa: BLE001 -- a broken plugin must not take the other commands down
            sys.stderr.write(
                f"gateway: the plugin command {name!r} could not be loaded ({type(error).__name__}: {error}).\n"
            )
            continue
        if isinstance(command, Subcommand) and command.name == name:
            yield command
        else:
            sys.stderr.write(
                f"gateway: the plugin command {name!r} is not a gateway.cli.Subcommand named {name!r}.\n"
            )


@cache
def version_line() -> str:
    """What ``gateway --version`` prints: the installed distribution's version."""
    return f"gateway ({DISTRIBUTION}) {VERSION}"


class _Parser(argparse.ArgumentParser):
    """An argument parser with ``--version``; the parsers of subcommands and their actions are made of it too."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.add_argument("--version", action="version", version=version_line())


def build_parser(argv: Sequence[str] = ()) -> argparse.ArgumentParser:
    """The argument parser with the core subcommands and the plugins' (only the one ``argv`` names, if it names one)."""
    parser = _Parser(
        prog="gateway",
        description="Decide, before anything runs, whether an AI agent's proposed tool call may run.",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    wanted = next((word for word in argv if not word.startswith("-")), None)
    for subcommand in (*CORE, *_plugin_commands(wanted)):
        sub = commands.add_parser(
            subcommand.name, help=subcommand.help, description=subcommand.help
        )
        subcommand.configure(sub)
        sub.set_defaults(run=subcommand.run)
    return parser


PIPE_CLOSED: Final = 128 + signal.SIGPIPE
"""The status of a command whose reader stopped reading: what a shell reports for a Unix tool SIGPIPE ended."""


def _only_broken_pipes(error: BaseException) -> bool:
    """Whether ``error`` is a broken pipe, alone or as all a task group's errors."""
    if isinstance(error, BaseExceptionGroup):
        return all(_only_broken_pipes(inner) for inner in error.exceptions)
    return isinstance(error, BrokenPipeError)


def _pipe_closed() -> int:
    """
    End quietly after the reader of standard output went away.

    What is still buffered for standard output goes nowhere (flushing it at
    exit would fail again, and Python would print that failure).
    """
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):  # pragma: no cover -- no file descriptor to replace
        pass
    return PIPE_CLOSED


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``gateway`` command; return its exit status."""
    words = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(words)
    arguments = parser.parse_args(words)
    try:
        status: int = arguments.run(arguments)
    except CommandError as error:
        sys.stderr.write(f"gateway {arguments.command}: {error}\n")
        return error.status
    except KeyboardInterrupt:
        return 130
    except BaseException as error:
        if _only_broken_pipes(error):
            return _pipe_closed()
        raise
    return status
