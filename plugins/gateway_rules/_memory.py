"""
Approvals a person asked to remember, and the file they are kept in.

A `RememberedApproval` is never broader than the width the person chose:
this exact plan (``digest``), this exact plan in this session (``session``),
or a program with its leading arguments (``prefix``). Each has a stable id,
the digest of what it allows, so the verdicts it gives name it
(``remembered.<id>``) and ``gateway remembered forget ID`` takes it back.

`MemoryFile` keeps them in one JSON file, readable by its owner only: a
relative path lies in the state directory, never where an agent works (an
agent that could write the file could remember its own approvals). Every
change is a read, a change and an atomic replace under a lock, so the
service remembering an approval and ``gateway remembered forget`` never
lose each other's work; a reader notices a change made elsewhere by the
file's identity (inode, size, time) and reads it again.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Final, Literal

import msgspec

from gateway import GatewayError
from gateway.config import state_path
from gateway.fleet import write_private

__all__ = [
    "MemoryFile",
    "MemoryFileError",
    "RememberedApproval",
    "approval_digest",
    "memory_path",
]

ID_LENGTH: Final = 12
"""Hex digits of an approval's id (of its 64-digit digest)."""


class RememberedApproval(msgspec.Struct, frozen=True, kw_only=True):
    """
    An approval a person asked to remember, never broader than what they saw.

    Attributes:
        scope: ``digest`` (this exact plan, anywhere), ``session`` (this exact
            plan, in this session only) or ``prefix`` (this program with these
            leading literal arguments: it counts as an allow rule about the
            program, and takes the place of an ask rule only where that rule
            yields to it and asks about nothing but the program's own doing).
        description: What will be allowed again, as one sentence to show first.
        digest: The plan digest, for ``digest`` and ``session``.
        session_id: The session, for ``session``.
        program: The program's basename, for ``prefix``.
        prefix: The leading arguments, for ``prefix``.
        created: When (UTC).
        note: The person's note.
        decided_by: Who asked for it (the name of their token), when known.
        command: The command it was remembered from, as the person saw it
            (shortened), so a list of approvals says what each is about.
        covers: What it will cover and what it never will, clause by clause,
            shown before it is saved.
        plan_format: The plan format (`gateway.effects.PLAN_FORMAT`) the
            digest was computed in. A digest of another format describes a
            plan of another shape and is never reused (a record without it
            is of format 1).
    """

    scope: Literal["digest", "session", "prefix"]
    description: str
    digest: str | None = None
    session_id: str | None = None
    program: str | None = None
    prefix: tuple[str, ...] = ()
    created: str = ""
    note: str | None = None
    decided_by: str | None = None
    command: str = ""
    covers: tuple[str, ...] = ()
    plan_format: int = 1

    @property
    def id(self) -> str:
        """The approval's stable id: the first digits of `approval_digest`."""
        return approval_digest(self)[:ID_LENGTH]


def approval_digest(approval: RememberedApproval) -> str:
    """The digest of what an approval allows (its width and what it names), whoever saved it when."""
    what = msgspec.json.encode(
        [approval.scope, approval.digest, approval.session_id, approval.program, approval.prefix]
    )
    return hashlib.sha256(what).hexdigest()


def memory_path(option: str) -> Path | None:
    """
    The memory file ``[approver.rules] memory`` names, or ``None`` to keep approvals in memory only.

    ``~`` is the home directory; a relative path is in the state directory
    (`gateway.config.state_directory`), not the working directory, which an agent may write.
    """
    if not option:
        return None
    return state_path(option)


_DECODER: Final = msgspec.json.Decoder(list[RememberedApproval])


class MemoryFileError(GatewayError, ValueError):
    """The memory file cannot be read or written; the message says which and why."""


class MemoryFile:
    """
    Remembered approvals in a JSON file (``None``: in this process only).

    Args:
        path: The file (see `memory_path`).
    """

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._seen: tuple[int, int, int] | None = None
        self._approvals: list[RememberedApproval] = []

    @property
    def approvals(self) -> list[RememberedApproval]:
        """What the file held when it was last read or written."""
        return self._approvals

    def _identity(self) -> tuple[int, int, int] | None:
        if self.path is None:
            return None
        try:
            status = os.stat(self.path)
        except FileNotFoundError:
            return None
        except OSError as error:
            raise MemoryFileError(
                f"Cannot read the remembered approvals {str(self.path)!r}: {error.strerror}."
            ) from None
        return (status.st_ino, status.st_size, status.st_mtime_ns)

    def _read(self) -> list[RememberedApproval]:
        if self.path is None:
            return self._approvals
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            return []
        except OSError as error:
            raise MemoryFileError(
                f"Cannot read the remembered approvals {str(self.path)!r}: {error.strerror}."
            ) from None
        try:
            return _DECODER.decode(data)
        except (msgspec.DecodeError, msgspec.ValidationError) as error:
            raise MemoryFileError(
                f"Cannot read the remembered approvals {str(self.path)!r}: {error}."
            ) from None

    def load(self) -> list[RememberedApproval]:
        """Read the file (again); its approvals."""
        self._seen = self._identity()
        self._approvals = self._read()
        return self._approvals

    def refresh(self) -> bool:
        """Read the file again if it changed since it was last read or written; whether it did."""
        if self.path is None or self._identity() == self._seen:
            return False
        self.load()
        return True

    @contextmanager
    def _locked(self) -> Iterator[None]:
        if self.path is None:
            yield
            return
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        lock = os.open(self.path.parent / f".{self.path.name}.lock", os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(lock, fcntl.LOCK_EX)
            yield
        finally:
            os.close(lock)

    def change(
        self, edit: Callable[[list[RememberedApproval]], list[RememberedApproval]]
    ) -> list[RememberedApproval]:
        """
        Apply ``edit`` to what the file holds now and write the result, under the file's lock.

        Raises:
            MemoryFileError: The file cannot be read or written.
        """
        with self._locked():
            approvals = edit(list(self._read()))
            if self.path is not None:
                _write(self.path, approvals)
            self._approvals = approvals
            self._seen = self._identity()
        return approvals


def _write(path: Path, approvals: list[RememberedApproval]) -> None:
    """Replace the file at once with ``approvals``, readable by its owner only (`gateway.fleet.write_private`)."""
    try:
        write_private(path, json.dumps(msgspec.to_builtins(approvals), indent=2).encode())
    except OSError as error:
        raise MemoryFileError(
            f"Cannot write the remembered approvals {str(path)!r}: {error.strerror}."
        ) from None
