"""Shared pieces of the ``gateway`` subcommands: the registry, input reading, JSON output."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

import msgspec

__all__ = ["SUBCOMMANDS", "CommandError", "Subcommand", "read_source", "register", "write_json"]

_ENCODER: Final = msgspec.json.Encoder()


class CommandError(Exception):
    """A subcommand cannot do what was asked; its message is one sentence for the user."""

    def __init__(self, message: str, status: int = 2) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class Subcommand:
    """One ``gateway`` subcommand."""

    name: str
    help: str
    configure: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace], int]


SUBCOMMANDS: dict[str, Subcommand] = {}


def register(subcommand: Subcommand) -> Subcommand:
    """Add a subcommand to the registry (at import time of its module)."""
    SUBCOMMANDS[subcommand.name] = subcommand
    return subcommand


def decode_utf8(data: bytes, what: str) -> str:
    """Decode UTF-8 strictly, or fail with one sentence naming the byte offset."""
    try:
        return data.decode("utf-8", "strict")
    except UnicodeDecodeError as error:
        raise CommandError(f"{what} is not valid UTF-8 (byte offset {error.start}).") from None


def read_source(value: str | None) -> str:
    """The SOURCE argument, or standard input when it is ``-`` or absent."""
    if value is not None and value != "-":
        return value
    return decode_utf8(sys.stdin.buffer.read(), "Standard input")


def write_json(value: Any) -> None:
    """Write one JSON value and a newline to standard output."""
    sys.stdout.buffer.write(_ENCODER.encode(value) + b"\n")
    sys.stdout.buffer.flush()
