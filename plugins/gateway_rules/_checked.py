"""
Rule examples checked once per policy: a cache of passing checks, keyed by the policy and the code.

Checking every rule's ``match`` / ``not-match`` examples plans hundreds of
commands, which costs seconds; a hook process starts a gateway (and so the
``rules`` approver) for every tool call. The outcome of the check depends
only on the rules and on the code that plans and matches them, so a passing
check is remembered under the digest of both: the rules as loaded (every
source's rules, in order) and a fingerprint of the installed ``gateway`` and
``gateway_rules`` modules (each file's path, size and modification time). A
change to either is a new key, and the examples run again.

Only success is remembered (a failing policy is checked, and refused, every
time), in one small file per key under ``$XDG_CACHE_HOME/agent-gateway/
rule-examples`` (user-only). The cache is an optimisation: it is never
required, and any failure to read or write it just runs the check.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Final

import msgspec

import gateway
from gateway_rules._schema import Rule

__all__ = ["examples_key", "known_good", "remember_good"]

_ENCODER: Final = msgspec.json.Encoder(order="sorted")
_MARK: Final = b"examples passed\n"


def _cache_directory() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path("~/.cache").expanduser())
    return Path(base) / "agent-gateway" / "rule-examples"


def _code_fingerprint() -> list[tuple[str, int, int]]:
    found = []
    for package in (Path(gateway.__file__).parent, Path(__file__).parent):
        for path in sorted(package.rglob("*.py")):
            with contextlib.suppress(OSError):
                stat = path.stat()
                found.append((str(path), stat.st_size, stat.st_mtime_ns))
    return found


def examples_key(sources: Sequence[tuple[str, Rule]], programs: object = None) -> str:
    """The digest a passing check of these rules is remembered under (rules, tables and code)."""
    preimage = _ENCODER.encode(
        {
            "rules": [rule for _, rule in sources],
            "programs": programs or {},
            "code": _code_fingerprint(),
        }
    )
    return hashlib.sha256(preimage).hexdigest()


def known_good(key: str) -> bool:
    """Whether these rules' examples are remembered as passing."""
    try:
        with open(_cache_directory() / key, "rb") as stream:
            return stream.read(64) == _MARK
    except OSError:
        return False


def remember_good(key: str) -> None:
    """Remember that these rules' examples pass (best effort)."""
    directory = _cache_directory()
    with contextlib.suppress(OSError):
        directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        temporary = directory / f".{key}.{os.getpid()}"
        descriptor = os.open(
            temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600
        )
        with os.fdopen(descriptor, "wb") as stream:
            stream.write(_MARK)
        os.replace(temporary, directory / key)
