"""``gateway parse``: print the neutral syntax tree, or why the text is unmeasured."""

from __future__ import annotations

import argparse

import msgspec

from gateway._cli._common import Subcommand, read_source, write_json
from gateway._cli._view import Style, add_json_argument, reading_view, wants_json, write_text
from gateway._read import read_shell


def _configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "source",
        nargs="?",
        metavar="SOURCE",
        help="the shell text; '-' or nothing reads standard input",
    )
    add_json_argument(parser)


def _run(arguments: argparse.Namespace) -> int:
    reading = read_shell(read_source(arguments.source, "parse", "echo $(id)"))
    if wants_json(arguments):
        write_json(reading)
    else:
        write_text(reading_view(msgspec.to_builtins(reading), Style()))
    return 0 if reading.measured else 2


COMMAND = Subcommand(
    name="parse",
    help="Print the neutral syntax tree both shell readers agree on, or the unmeasured reason (JSON when piped or with --json).",
    configure=_configure,
    run=_run,
)
