"""
The ``gateway`` command.

Each subcommand lives in its own module and registers itself with
`SUBCOMMANDS`; this module only dispatches. Every subcommand prints JSON on
stdout for data and one sentence on stderr for errors, and returns an exit
status: 0 for success, 1 for a negative answer (a broken audit chain), 2 for
bad input or usage.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from gateway._cli import (
    _audit as _audit,
    _check as _check,
    _hook as _hook,
    _parse as _parse,
    _plan as _plan,
    _policy as _policy,
    _rules as _rules,
    _serve as _serve,
    _settings as _settings,
    _token as _token,
    _verify as _verify,
)
from gateway._cli._common import SUBCOMMANDS, CommandError

__all__ = ["main"]


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every registered subcommand."""
    parser = argparse.ArgumentParser(
        prog="gateway",
        description="Decide, before anything runs, whether an AI agent's proposed tool call may run.",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for subcommand in SUBCOMMANDS.values():
        sub = commands.add_parser(
            subcommand.name, help=subcommand.help, description=subcommand.help
        )
        subcommand.configure(sub)
        sub.set_defaults(run=subcommand.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``gateway`` command; return its exit status."""
    parser = build_parser()
    arguments = parser.parse_args(argv)
    try:
        status: int = arguments.run(arguments)
    except CommandError as error:
        sys.stderr.write(f"gateway {arguments.command}: {error}\n")
        return error.status
    except KeyboardInterrupt:
        return 130
    return status
