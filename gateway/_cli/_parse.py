"""``gateway parse``: print the neutral syntax tree, or why the text is unmeasured."""

from __future__ import annotations

import argparse

from gateway._cli._common import Subcommand, read_source, write_json
from gateway._shell import read_shell


def _configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "source",
        nargs="?",
        metavar="SOURCE",
        help="the shell text; '-' or nothing reads standard input",
    )


def _run(arguments: argparse.Namespace) -> int:
    reading = read_shell(read_source(arguments.source))
    write_json(reading)
    return 0 if reading.measured else 2


COMMAND = Subcommand(
    name="parse",
    help="Print the neutral syntax tree both shell readers agree on, or the unmeasured reason, as JSON.",
    configure=_configure,
    run=_run,
)
