"""Shared pieces of the ``gateway`` subcommands: the command type, input reading, JSON output."""

from __future__ import annotations

import argparse
import os
import shlex
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

import msgspec

from gateway._settings._config import GatewayConfig, SinkConfig, state_path
from gateway._settings._plugins import COMMAND_GROUP as COMMAND_GROUP

__all__ = [
    "COMMAND_GROUP",
    "CommandError",
    "Subcommand",
    "add_cwd_argument",
    "cwd_of",
    "decode_utf8",
    "needs_extra",
    "read_input",
    "read_source",
    "write_json",
]

_ENCODER: Final = msgspec.json.Encoder()


class CommandError(Exception):
    """A subcommand cannot do what was asked; its message is one sentence for the user."""

    def __init__(self, message: str, status: int = 2) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class Subcommand:
    """
    One ``gateway`` subcommand.

    The built-in ones live in ``gateway._cli``; a plugin adds one by naming a
    `Subcommand` in the ``gateway.commands`` entry-point group (the entry
    point's name is the subcommand's). ``configure`` adds its arguments;
    ``run`` returns the exit status or raises `CommandError`. Keep the module
    the entry point names light: the ``gateway`` command imports it whenever
    the subcommand runs or ``--help`` lists it, so heavy imports belong
    inside ``run``.

    Attributes:
        name: The word after ``gateway``.
        help: One sentence for ``gateway --help``.
        configure: Adds the subcommand's arguments to its parser.
        run: Runs it with the parsed arguments; returns the exit status.
    """

    name: str
    help: str
    configure: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace], int]


def add_audit_argument(parser: argparse.ArgumentParser) -> None:
    """``--audit FILE``: where the audit log goes instead of the config's sinks."""
    parser.add_argument(
        "--audit", metavar="FILE", help="write the audit log here (instead of the config's sinks)"
    )


def with_audit_file(config: GatewayConfig, name: str) -> GatewayConfig:
    """
    ``config`` writing its audit log to ``name`` only (``--audit``): msgpack for ``.msgpack``/``.mpk``, else JSON lines.

    A relative ``name`` is a relative ``[sinks] path``: in the state directory.
    """
    plugin = "msgpack" if name.endswith((".msgpack", ".mpk")) else "jsonl"
    sink = SinkConfig(plugin=plugin, path=name, required=True)
    return msgspec.structs.replace(config, sinks={"audit": sink})


def add_cwd_argument(parser: argparse.ArgumentParser, what: str) -> None:
    """``--cwd DIR``: the directory a call runs in (default: the command's own)."""
    parser.add_argument(
        "--cwd",
        metavar="DIR",
        help=f"the directory {what} (default: the current directory, as a host's call would say)",
    )


def cwd_of(arguments: argparse.Namespace) -> str:
    """The absolute directory a call is judged in: ``--cwd``, else the command's own."""
    given = getattr(arguments, "cwd", None)
    return os.path.abspath(given) if given else os.getcwd()


def audit_file_of(name: str) -> str:
    """
    The audit log a command names: the file here, or, when nothing here has
    that relative name, the log of that name in the state directory (where
    a relative ``[sinks] path`` puts it: ``gateway verify gateway-audit.jsonl``
    checks the default log from anywhere).
    """
    if os.path.isabs(name) or os.path.lexists(name):
        return name
    return str(state_path(name))


def needs_extra(what: str, extra: str) -> str:
    """
    The sentence for a feature whose extra is not installed.

    agent-gateway is installed from a clone (it is on no package index yet),
    so the fix is the clone's editable install with that extra.

    >>> needs_extra("Using a broker", "nats")
    "Using a broker needs the nats extra: in the clone you installed from, run pip install -e '.[nats]'."
    """
    return f"{what} needs the {extra} extra: in the clone you installed from, run pip install -e '.[{extra}]'."


def decode_utf8(data: bytes, what: str) -> str:
    """Decode UTF-8 strictly, or fail with one sentence naming the byte offset."""
    try:
        return data.decode("utf-8", "strict")
    except UnicodeDecodeError as error:
        raise CommandError(f"{what} is not valid UTF-8 (byte offset {error.start}).") from None


def _stdin_is_terminal() -> bool:
    isatty = getattr(sys.stdin, "isatty", None)
    return bool(isatty()) if callable(isatty) else False


def read_input(value: str | None, question: str) -> bytes:
    """
    Standard input's bytes, for an argument that is ``-`` or absent.

    Absent on a terminal, nothing would come until end of file and the
    command would seem to hang: it raises ``question`` instead, the sentence
    saying what it expects (``-`` reads a terminal all the same, until Ctrl-D).

    Raises:
        CommandError: Nothing was given and standard input is a terminal.
    """
    if value is None and _stdin_is_terminal():
        raise CommandError(question)
    return sys.stdin.buffer.read()


def read_source(value: str | None, command: str, example: str) -> str:
    """
    The SOURCE argument, or standard input when it is ``-`` or absent (`read_input`).

    ``command`` and ``example`` make the question asked on a terminal:
    ``gateway COMMAND 'EXAMPLE'``.
    """
    if value is not None and value != "-":
        return value
    question = (
        f"{command.capitalize()} what? Give the shell text as an argument "
        f"(gateway {command} {shlex.quote(example)}), or pipe it in ('-' reads standard input)."
    )
    return decode_utf8(read_input(value, question), "Standard input")


def write_json(value: Any) -> None:
    """Write one JSON value and a newline to standard output."""
    sys.stdout.buffer.write(_ENCODER.encode(value) + b"\n")
    sys.stdout.buffer.flush()
