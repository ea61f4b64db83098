"""
Tokens and roles: who may review, read and decide at the approval service.

People get tokens of their own (``gateway token create NAME --role R``),
each with one role:

* ``approver``: decides calls that wait for a person, reads, reviews;
* ``viewer``: reads (the page, the calls, the events, the audit log);
* ``agent``: submits calls for review (``/v1/review``, the hooks), nothing else.

A token is shown once, when it is made; only its SHA-256 digest is stored
(in the state directory, or in the broker's key-value bucket with a fleet),
so a stolen store does not give anyone a token. Every decision records the
name of the token it came with. ``gateway serve`` also makes one token of
its own at every start, named `OWNER`, with the approver role.

This module reads and writes the state-directory store only; the broker's
store lives in the ``gateway_nats`` plugin and fills the same `TokenBook`.
"""

from __future__ import annotations

import hashlib
import os
import re
import secrets
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Final, Literal

import anyio
import anyio.to_thread
import msgspec
from anyio.abc import TaskStatus

from gateway._settings._config import state_directory

__all__ = [
    "OWNER",
    "ROLES",
    "ROLE_PERMISSIONS",
    "Identity",
    "Permission",
    "Role",
    "TokenBook",
    "TokenError",
    "TokenFile",
    "TokenRecord",
    "check_token_name",
    "default_tokens_file",
    "follow_token_file",
    "make_token",
    "token_digest",
    "write_private",
]

Role = Literal["approver", "viewer", "agent"]
"""What a token may do: decide (and read, review), read, or submit calls."""

Permission = Literal["review", "read", "decide"]
"""One thing a request may need: submit a call, read what the service shows, decide a call."""

ROLES: Final[tuple[Role, ...]] = ("approver", "viewer", "agent")

ROLE_PERMISSIONS: Final[Mapping[Role, frozenset[Permission]]] = {
    "approver": frozenset({"review", "read", "decide"}),
    "viewer": frozenset({"read"}),
    "agent": frozenset({"review"}),
}
"""The one table of what each role may do."""

OWNER: Final = "owner"
"""The name of the token ``gateway serve`` makes at every start (role ``approver``)."""

_NAME: Final = re.compile(r"[a-z0-9][a-z0-9._-]{0,63}")


class TokenError(Exception):
    """A token cannot be made, revoked or read; the message is one sentence for the user."""


class Identity(msgspec.Struct, frozen=True, kw_only=True):
    """
    Who a token belongs to, and its role.

    Attributes:
        name: The token's name (``owner`` for the service's own token).
        role: ``approver``, ``viewer`` or ``agent``.
    """

    name: str
    role: Role

    def may(self, permission: Permission) -> bool:
        """Whether this identity's role grants ``permission``."""
        return permission in ROLE_PERMISSIONS[self.role]


class TokenRecord(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """
    One stored token: its name, role and digest (never the token itself).

    Attributes:
        name: Who it is for (lowercase letters, digits, ``.``, ``_``, ``-``).
        role: ``approver``, ``viewer`` or ``agent``.
        digest: ``sha256:`` and the hex digest of the token.
        created: When it was made (UTC, ISO 8601).
    """

    name: str
    role: Role
    digest: str
    created: str


def token_digest(token: str) -> str:
    """The stored form of a token: ``sha256:`` and its hex digest."""
    return "sha256:" + hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def check_token_name(name: str) -> str:
    """
    The name, if it may name a token.

    Raises:
        TokenError: It is not 1 to 64 lowercase letters, digits, ``.``, ``_``
            or ``-`` (starting with a letter or digit), or it is `OWNER`.
    """
    if not _NAME.fullmatch(name):
        raise TokenError(
            f"A token name is 1 to 64 lowercase letters, digits, '.', '_' or '-', not {name[:80]!r}."
        )
    if name == OWNER:
        raise TokenError(
            f"The name {OWNER!r} is the token `gateway serve` makes at start; choose another."
        )
    return name


def make_token(name: str, role: Role) -> tuple[str, TokenRecord]:
    """
    A new token for ``name`` and the record to store for it.

    Raises:
        TokenError: The name cannot name a token, or the role is unknown.
    """
    check_token_name(name)
    if role not in ROLES:
        raise TokenError(f"The role must be approver, viewer or agent, not {role!r}.")
    token = "gw_" + secrets.token_urlsafe(32)
    record = TokenRecord(
        name=name,
        role=role,
        digest=token_digest(token),
        created=datetime.now(UTC).isoformat(timespec="seconds"),
    )
    return token, record


class TokenBook:
    """
    The tokens a service accepts, by digest: looked up on every request, without I/O.

    A store (the state-directory file, the broker's bucket) keeps it current
    with `TokenBook.replace`; the service's own token is `TokenBook.pin`-ned
    and survives every replacement.
    """

    def __init__(self, records: Iterable[TokenRecord] = ()) -> None:
        self._pinned: dict[str, Identity] = {}
        self._stored: dict[str, Identity] = {}
        self.replace(records)

    def pin(self, token: str, identity: Identity) -> None:
        """Accept ``token`` as ``identity`` until the book is dropped."""
        self._pinned[token_digest(token)] = identity

    def replace(self, records: Iterable[TokenRecord]) -> None:
        """Accept exactly these stored tokens (and the pinned ones)."""
        self._stored = {
            record.digest: Identity(name=record.name, role=record.role) for record in records
        }

    def identify(self, token: str) -> Identity | None:
        """Who ``token`` belongs to, or ``None`` when it is no token this book accepts."""
        if not token:
            return None
        digest = token_digest(token)
        return self._pinned.get(digest) or self._stored.get(digest)

    def names(self) -> list[str]:
        """The names of the stored tokens (not the pinned ones), sorted."""
        return sorted(identity.name for identity in self._stored.values())


def write_private(path: str | Path, data: bytes) -> Path:
    """
    Write ``data`` to ``path`` with user-only permissions (0600), replacing it atomically.

    The directory is made (0700) when missing. The file is written under a
    temporary name opened with ``O_EXCL | O_NOFOLLOW`` and renamed over the
    old one, so it is never readable by others, not even for a moment, and a
    symbolic link planted at the temporary name is not followed.

    Returns:
        The path written.

    Raises:
        OSError: It cannot be written.
    """
    target = Path(path).expanduser()
    target.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    temporary = target.with_name(f".{target.name}.{os.getpid()}.{secrets.token_hex(4)}")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    handle = os.open(temporary, flags, 0o600)
    try:
        with os.fdopen(handle, "wb") as stream:
            os.fchmod(stream.fileno(), 0o600)
            stream.write(data)
        os.replace(temporary, target)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    return target


def default_tokens_file(environ: Mapping[str, str] | None = None) -> Path:
    """
    Where people's tokens are stored without a broker: ``tokens.json`` in the state directory.

    ``$XDG_STATE_HOME/agent-gateway/tokens.json``, or ``~/.local/state/agent-gateway/tokens.json``.
    """
    return state_directory(environ) / "tokens.json"


_RECORDS: Final = msgspec.json.Decoder(list[TokenRecord])
_ENCODER: Final = msgspec.json.Encoder(order="sorted")


class TokenFile:
    """
    The state-directory token store: a JSON list of `TokenRecord`, mode 0600.

    Args:
        path: The file (default: `default_tokens_file`).
    """

    def __init__(self, path: str | Path | None = None) -> None:
        self.path = Path(path).expanduser() if path is not None else default_tokens_file()

    def records(self) -> list[TokenRecord]:
        """
        The stored tokens (none when the file does not exist).

        Raises:
            TokenError: The file cannot be read, or is not a token list.
        """
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            return []
        except OSError as error:
            raise TokenError(
                f"Cannot read the token store {str(self.path)!r} ({error.strerror})."
            ) from None
        try:
            return _RECORDS.decode(data)
        except (msgspec.DecodeError, msgspec.ValidationError) as error:
            raise TokenError(
                f"The token store {str(self.path)!r} is not a list of tokens ({error})."
            ) from None

    def stamp(self) -> tuple[int, int] | None:
        """The file's modification time and size, to notice changes (``None`` when missing)."""
        try:
            status = self.path.stat()
        except OSError:
            return None
        return status.st_mtime_ns, status.st_size

    def _save(self, records: list[TokenRecord]) -> None:
        try:
            write_private(self.path, _ENCODER.encode(sorted(records, key=lambda r: r.name)))
        except OSError as error:
            raise TokenError(
                f"Cannot write the token store {str(self.path)!r} ({error.strerror})."
            ) from None

    def create(self, name: str, role: Role) -> str:
        """
        Make and store a token for ``name``; return the token (shown once).

        Raises:
            TokenError: The name is taken or invalid, or the store cannot be written.
        """
        token, record = make_token(name, role)
        records = self.records()
        if any(existing.name == name for existing in records):
            raise TokenError(
                f"A token named {name!r} exists already; revoke it first (`gateway token revoke {name}`)."
            )
        self._save([*records, record])
        return token

    def revoke(self, name: str) -> bool:
        """Remove the token named ``name``; whether there was one."""
        records = self.records()
        kept = [record for record in records if record.name != name]
        if len(kept) == len(records):
            return False
        self._save(kept)
        return True


FOLLOW_INTERVAL: Final = 1.0
"""Seconds between looks at the token file for tokens made or revoked meanwhile."""


async def follow_token_file(
    store: TokenFile, book: TokenBook, *, task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED
) -> None:
    """
    Keep ``book`` equal to the token file until cancelled (started once it is read).

    A token made or revoked with ``gateway token`` counts within a second. A
    file that cannot be read leaves the book empty of stored tokens (the
    service's own token still works): no token is accepted on an old reading.
    """
    seen: tuple[int, int] | bool | None = False
    started = False
    while True:
        stamp = await anyio.to_thread.run_sync(store.stamp)
        if stamp != seen:
            seen = stamp
            try:
                records = await anyio.to_thread.run_sync(store.records)
            except TokenError:
                records = []
            book.replace(records)
        if not started:
            started = True
            task_status.started()
        await anyio.sleep(FOLLOW_INTERVAL)
