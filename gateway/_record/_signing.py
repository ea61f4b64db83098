"""
Keys that sign the event chain, and checking what they signed.

Two kinds, as ``[audit]`` chooses:

* **Ed25519** (``signing-key``): the gateway holds a private key; anyone with
  the public key can check the log (`gateway verify --key PUB`) and nobody
  without the private key can sign. Keys are PEM files; `generate_key` writes
  a pair (``gateway keygen``). Needs the ``cryptography`` package.
* **HMAC-SHA256** (``hmac-key``): a shared secret; whoever checks holds the
  same secret, so it proves the log to the secret's holders only.

A key file must be readable by its owner alone (mode 0600 or stricter): a
key others can read signs nothing. A signature is base64url text over the
UTF-8 bytes of a record's `gateway._calls._events.signed_digest`.
"""

from __future__ import annotations

import base64
import errno
import hashlib
import hmac
import os
import stat
from pathlib import Path
from typing import Any, Final, Protocol

from gateway._calls._errors import ConfigError
from gateway._calls._events import SigningAlgorithm

__all__ = [
    "Signer",
    "Verifier",
    "ensure_key",
    "generate_key",
    "load_signer",
    "load_verifier",
]

_PRIVATE_PEM: Final = b"-----BEGIN PRIVATE KEY-----"
_PUBLIC_PEM: Final = b"-----BEGIN PUBLIC KEY-----"
_MAX_KEY_BYTES: Final = 64 * 1024


class Signer(Protocol):
    """Something that signs: its algorithm, its key id, and `sign`."""

    algorithm: SigningAlgorithm
    key_id: str

    def sign(self, message: bytes) -> str:
        """The signature of ``message`` (base64url, no padding)."""


class Verifier(Protocol):
    """Something that checks signatures of one key."""

    algorithm: SigningAlgorithm
    key_id: str

    def verify(self, message: bytes, signature: str) -> bool:
        """Whether ``signature`` is this key's signature of ``message``."""


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes | None:
    try:
        return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except (ValueError, TypeError):
        return None


def _crypto() -> Any:
    try:
        from cryptography.hazmat.primitives.asymmetric import ed25519
    except ImportError:  # pragma: no cover - cryptography is installed with the project
        raise ConfigError(
            "Signing with Ed25519 needs the cryptography package: pip install cryptography."
        ) from None
    return ed25519


class _Ed25519Signer:
    algorithm: SigningAlgorithm = "ed25519"

    def __init__(self, private: Any) -> None:
        self._private = private
        self.key_id = _ed25519_id(private.public_key().public_bytes_raw())

    def sign(self, message: bytes) -> str:
        return _b64(self._private.sign(message))


class _Ed25519Verifier:
    algorithm: SigningAlgorithm = "ed25519"

    def __init__(self, public: Any, raw: bytes) -> None:
        self._public = public
        self.key_id = _ed25519_id(raw)

    def verify(self, message: bytes, signature: str) -> bool:
        from cryptography.exceptions import InvalidSignature

        data = _unb64(signature)
        if data is None or len(data) != 64:
            return False
        try:
            self._public.verify(data, message)
        except InvalidSignature:
            return False
        return True


class _Hmac:
    algorithm: SigningAlgorithm = "hmac-sha256"

    def __init__(self, secret: bytes) -> None:
        self._secret = secret
        self.key_id = (
            "hmac:" + hashlib.sha256(b"agent-gateway key id\x00" + secret).hexdigest()[:16]
        )

    def sign(self, message: bytes) -> str:
        return _b64(hmac.digest(self._secret, message, "sha256"))

    def verify(self, message: bytes, signature: str) -> bool:
        return hmac.compare_digest(self.sign(message), signature)


def _ed25519_id(raw: bytes) -> str:
    return "ed25519:" + hashlib.sha256(raw).hexdigest()[:16]


def _read_private(path: str, what: str) -> bytes:
    """A key file's bytes, refused unless only its owner can read it."""
    target = Path(path).expanduser()
    # Never through a link (whoever may change it chooses the key), and
    # never waiting on a FIFO: a key is a regular file, opened as it is.
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0)
    try:
        descriptor = os.open(target, flags)
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise ConfigError(
                f"The {what} {str(target)!r} is a symbolic link; name the key file itself.",
                path="$.audit",
            ) from None
        raise ConfigError(
            f"Cannot read the {what} {str(target)!r} ({error.strerror}).", path="$.audit"
        ) from None
    try:
        mode = os.fstat(descriptor).st_mode
        if not stat.S_ISREG(mode):
            raise ConfigError(f"The {what} {str(target)!r} is not a regular file.", path="$.audit")
        if mode & (stat.S_IRWXG | stat.S_IRWXO):
            raise ConfigError(
                f"The {what} {str(target)!r} is readable by others (mode {stat.S_IMODE(mode):04o}); "
                f"make it 0600 with `chmod 600 {target}`.",
                path="$.audit",
            )
        data = os.read(descriptor, _MAX_KEY_BYTES + 1)
    finally:
        os.close(descriptor)
    if len(data) > _MAX_KEY_BYTES:
        raise ConfigError(f"The {what} {str(target)!r} is too large to be a key.", path="$.audit")
    return data


_ED25519_PKCS8: Final = bytes.fromhex("302e020100300506032b657004220420")
"""
The DER of an unencrypted Ed25519 private key in PKCS#8 (RFC 8410), before its
32-byte seed: the form `generate_key` and `ensure_key` write.
"""


def _plain_ed25519(data: bytes, ed25519: Any) -> Any:
    """
    The key of a PEM in exactly the form this module writes, or ``None`` for any other.

    Read without the ``serialization`` module, whose import costs as much
    as the rest of signing at every start (a hook is a process per call);
    any other form is left to it.
    """
    lines = data.strip().splitlines()
    if len(lines) < 3 or lines[0] != _PRIVATE_PEM or lines[-1] != b"-----END PRIVATE KEY-----":
        return None
    try:
        der = base64.b64decode(b"".join(lines[1:-1]), validate=True)
    except ValueError:
        return None
    if len(der) != len(_ED25519_PKCS8) + 32 or not der.startswith(_ED25519_PKCS8):
        return None
    return ed25519.Ed25519PrivateKey.from_private_bytes(der[len(_ED25519_PKCS8) :])


def load_signer(*, signing_key: str | None, hmac_key: str | None) -> Signer | None:
    """
    The signer ``[audit]`` names, or ``None`` when it names none.

    Raises:
        ConfigError: The key file is missing, readable by others, or not a key.
    """
    if hmac_key:
        secret = _read_private(hmac_key, "HMAC key file").strip()
        if len(secret) < 32:
            raise ConfigError(
                f"The HMAC key in {hmac_key!r} is shorter than 32 bytes; use a long random secret.",
                path="$.audit.hmac-key",
            )
        return _Hmac(secret)
    if not signing_key:
        return None
    data = _read_private(signing_key, "signing key")
    ed25519 = _crypto()
    private = _plain_ed25519(data, ed25519)
    if private is None:
        from cryptography.hazmat.primitives import serialization

        try:
            private = serialization.load_pem_private_key(data, password=None)
        except (ValueError, TypeError):
            private = None
    if not isinstance(private, ed25519.Ed25519PrivateKey):
        raise ConfigError(
            f"The signing key {signing_key!r} is not an unencrypted Ed25519 private key in PEM; "
            "make one with `gateway keygen`.",
            path="$.audit.signing-key",
        )
    return _Ed25519Signer(private)


def load_verifier(path: str) -> Verifier:
    """
    The verifier of a key file: an Ed25519 public (or private) key in PEM, or an HMAC secret.

    Raises:
        ConfigError: The file cannot be read or holds no key.
    """
    target = Path(path).expanduser()
    try:
        data = target.read_bytes()[: _MAX_KEY_BYTES + 1]
    except OSError as error:
        raise ConfigError(f"Cannot read the key {str(target)!r} ({error.strerror}).") from None
    stripped = data.strip()
    if stripped.startswith((_PUBLIC_PEM, _PRIVATE_PEM)):
        ed25519 = _crypto()
        from cryptography.hazmat.primitives import serialization

        key: Any
        try:
            if stripped.startswith(_PUBLIC_PEM):
                key = serialization.load_pem_public_key(stripped)
            else:
                key = serialization.load_pem_private_key(stripped, password=None).public_key()
        except (ValueError, TypeError):
            key = None
        if not isinstance(key, ed25519.Ed25519PublicKey):
            raise ConfigError(f"The key {str(target)!r} is not an Ed25519 key.")
        raw = key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
        return _Ed25519Verifier(key, raw)
    if len(stripped) < 32:
        raise ConfigError(
            f"The key {str(target)!r} is neither an Ed25519 key in PEM nor an HMAC secret of 32 bytes or more."
        )
    return _Hmac(stripped)


def _key_pair() -> tuple[bytes, bytes]:
    """A new Ed25519 key pair: the private key (PKCS#8 PEM) and the public key (PEM)."""
    ed25519 = _crypto()
    from cryptography.hazmat.primitives import serialization

    private = ed25519.Ed25519PrivateKey.generate()
    secret = private.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    public = private.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    return secret, public


def _public_of(secret: bytes) -> bytes | None:
    """The public key (PEM) of a private key's PEM, or ``None`` when it holds no Ed25519 key."""
    ed25519 = _crypto()
    from cryptography.hazmat.primitives import serialization

    try:
        private = serialization.load_pem_private_key(secret, password=None)
    except (ValueError, TypeError):
        return None
    if not isinstance(private, ed25519.Ed25519PrivateKey):
        return None
    public: bytes = private.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    return public


def _place(target: Path, data: bytes, mode: int) -> bool:
    """
    Put a whole file at ``target`` unless one is there: written beside it, then linked into place.

    Nobody ever sees it half written, and a file already there is never
    replaced (a link fails where a name exists). Whether this call placed it.

    Raises:
        OSError: The directory cannot be written.
    """
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    temporary = target.with_name(f".{target.name}.{os.getpid()}.{os.urandom(6).hex()}")
    descriptor = os.open(temporary, flags, mode)
    try:
        try:
            os.fchmod(descriptor, mode)
            os.write(descriptor, data)
            os.fsync(descriptor)
        finally:
            os.close(descriptor)
        try:
            os.link(temporary, target, follow_symlinks=False)
        except FileExistsError:
            return False
        return True
    finally:
        os.unlink(temporary)


def ensure_key(path: str | Path) -> bool:
    """
    Make the Ed25519 key pair at ``path`` (and ``path.pub``) unless a key is there; whether one was made.

    The private key is created whole and readable by its owner alone (0600),
    in a directory only its owner may enter; a key already there — even one
    that cannot be read, or that holds no key — is never replaced (loading
    it then says what is wrong). Two gateways starting at once make one key:
    the second uses the first's. A missing public key is made again from
    the private one.

    Raises:
        ConfigError: The key or its directory cannot be written.
    """
    target = Path(path).expanduser()
    made = False
    try:
        if not os.path.lexists(target):
            target.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            secret, _ = _key_pair()
            made = _place(target, secret, 0o600)
        public_path = target.with_name(target.name + ".pub")
        if not os.path.lexists(public_path):
            public = _public_of(_read_private(str(target), "signing key"))
            if public is not None:
                _place(public_path, public, 0o644)
    except OSError as error:
        raise ConfigError(
            f"Cannot create the signing key {str(target)!r} ({error.strerror}).",
            path="$.audit.signing-key",
        ) from None
    return made


def generate_key(path: str | Path) -> tuple[Path, Path]:
    """
    Write a new Ed25519 key pair: the private key at ``path`` (0600), the public key at ``path.pub``.

    Neither file may exist yet: a key is never overwritten.

    Raises:
        OSError: A file exists or cannot be written.
    """
    secret, public = _key_pair()
    target = Path(path).expanduser()
    public_path = target.with_name(target.name + ".pub")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    for where, data, mode in ((target, secret, 0o600), (public_path, public, 0o644)):
        descriptor = os.open(where, flags, mode)
        try:
            os.fchmod(descriptor, mode)
            os.write(descriptor, data)
        finally:
            os.close(descriptor)
    return target, public_path
