"""
Redaction: find literal secrets in a call's text and publish them masked.

The secret patterns live here and nowhere else. Detection is span-based over
the whole source, so every value cut from the source — an argument, an
assignment, a redirect target, a heredoc body, a rendered statement, the
source itself — is masked the same way: the secret becomes ``<kind>``, and a
`Redaction` carries the kind and a fingerprint.

Fingerprints are PBKDF2-SHA256 (20,000 rounds, a fixed salt) cut to 12 hex
digits: equal secrets compare equal across plans and gateways, and reading a
secret back needs a brute-force search made slow on purpose. Digests are
computed from the *unredacted* plan, so a redacted plan still binds the exact
command.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from functools import lru_cache
from typing import Final, NamedTuple

from gateway._plans import Plain, PlannedValue, Redacted

__all__ = ["SECRET_KINDS", "Redactor", "Secret", "find_secrets", "fingerprint"]

_VALUE: Final = r"""("[^"\n]*"|'[^'\n]*'|[^\s'"`;&|<>()]+)"""


class _Pattern(NamedTuple):
    kind: str
    regex: re.Pattern[str]


def _p(kind: str, pattern: str, flags: int = 0) -> _Pattern:
    return _Pattern(kind, re.compile(pattern, flags))


# Order matters: earlier patterns win where spans overlap.
PATTERNS: Final = (
    _p(
        "private-key",
        r"(-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----.*?(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|\Z))",
        re.DOTALL,
    ),
    _p("aws-access-key", r"\b((?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[0-9A-Z]{16})\b"),
    _p(
        "aws-secret-key",
        # `=`/`:` or plain blanks: `aws configure set aws_secret_access_key KEY`.
        r"(?i)aws_?secret_?access_?key[\"']?(?:\s*[=:]\s*|\s+)[\"']?([A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])",
    ),
    _p(
        "github-token", r"\b((?:gh[pousr]_[A-Za-z0-9]{30,255})|(?:github_pat_[A-Za-z0-9_]{22,255}))"
    ),
    _p("gitlab-token", r"\b(glpat-[A-Za-z0-9_-]{20,})"),
    _p("slack-token", r"\b(xox[abposr]-[A-Za-z0-9-]{10,})"),
    _p("slack-webhook", r"(https://hooks\.slack\.com/services/[A-Za-z0-9/_-]{20,})"),
    _p("anthropic-api-key", r"\b(sk-ant-[A-Za-z0-9_-]{20,})"),
    _p("openai-api-key", r"\b(sk-(?:proj-|svcacct-)?[A-Za-z0-9_-]{20,})"),
    _p("stripe-key", r"\b((?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,})"),
    _p("google-api-key", r"\b(AIza[0-9A-Za-z_-]{35})"),
    _p("npm-token", r"\b(npm_[A-Za-z0-9]{36})"),
    _p("huggingface-token", r"\b(hf_[A-Za-z0-9]{30,})"),
    _p("vault-token", r"\b(hv[sbr]\.[A-Za-z0-9_-]{24,})"),
    _p("jwt", r"\b(eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,})"),
    _p("bearer-token", r"(?i)\bbearer\s+([A-Za-z0-9._~+/=-]{8,})"),
    _p("basic-auth", r"(?i)\bauthorization:\s*basic\s+([A-Za-z0-9+/=]{8,})"),
    _p("url-credentials", r"\b[a-zA-Z][a-zA-Z0-9+.-]*://[^/\s:@'\"]+:([^/\s@'\"]+)@"),
    _p(
        "password",
        r"(?i)(?:--password|--passwd|--pass|--pwd|--db-password|--admin-password|--client-secret)(?:=|\s+)"
        + _VALUE,
    ),
    _p("password", r"(?:\s|^)(?:-u|--user)(?:=|\s+)['\"]?[^\s:'\"]+:([^\s'\"]+)"),
    _p("password", r"\bsshpass\s+-p\s*" + _VALUE),
    _p("password", r"\bmysql(?:dump|admin)?\b[^\n|;&]*?\s-p([^\s'\"-][^\s'\"]*)"),
    # Programs whose short option takes the password: `docker login -p`, `az login -p`,
    # `redis-cli -a`, `ldapsearch -w`, OpenSSL's `-pass pass:…`, smbclient's `-U user%pass`.
    _p(
        "password",
        r"\b(?:docker|podman|nerdctl|buildah|skopeo|az)\s+login\b[^\n|;&]*?\s-p\s*" + _VALUE,
    ),
    _p("password", r"\bredis-cli\b[^\n|;&]*?\s-a\s*" + _VALUE),
    _p(
        "password",
        r"\bldap(?:search|add|modify|delete|passwd|whoami|compare|modrdn|exop)\b[^\n|;&]*?\s-w\s*"
        + _VALUE,
    ),
    _p("password", r"\s-pass(?:in|out)?\s+['\"]?pass:([^\s'\"]+)"),
    _p("password", r"(?:\s|^)(?:-U|--user)(?:=|\s+)['\"]?[^\s%'\"]+%([^\s'\"]+)"),
    _p(
        "password",
        r"(?i)\b[A-Za-z0-9_]*(?:password|passwd|pass_?word)[\"']?\s*[=:]\s*" + _VALUE,
    ),
    _p(
        "generic-api-key",
        r"(?i)\b(?:x-api-key|api-key|apikey|x-auth-token|private-token|x-access-token)\s*:\s*([A-Za-z0-9._~+/=-]{8,})",
    ),
    _p(
        "generic-api-key",
        r"(?i)\b[A-Za-z0-9_]*(?:api_?key|apikey|secret_?key|access_?token|auth_?token|client_?secret|secret|token)[\"']?\s*[=:]\s*"
        + _VALUE,
    ),
)

SECRET_KINDS: Final = tuple(dict.fromkeys(p.kind for p in PATTERNS))
_MIN_SECRET: Final = 4
_REPEATABLE: Final = re.compile(r"^(?=.{8,}$)(?=.*[0-9])(?=.*[A-Za-z])", re.DOTALL)
# Values that are clearly not secrets: placeholders and shell expansions.
_NOT_SECRET: Final = re.compile(
    r"^(?:\$.*|<[^>]*>|\*+|x+|\.\.\.|true|false|null|none|yes|no)$", re.IGNORECASE
)


class Secret(NamedTuple):
    """A secret found in a text: where it is (characters) and what kind it is."""

    start: int
    end: int
    kind: str


@lru_cache(maxsize=4096)
def fingerprint(value: str) -> str:
    """
    A short, slow, keyless fingerprint of a secret (12 hex digits).

    About 4 ms each on purpose (a fingerprint of a weak password must not be
    cheap to search), so the last few thousand are kept: a secret an agent
    repeats costs it once.
    """
    derived = hashlib.pbkdf2_hmac(
        "sha256", value.encode("utf-8", "surrogatepass"), b"agent-gateway/redaction/v1", 20_000
    )
    return derived[:6].hex()


def find_secrets(text: str) -> tuple[Secret, ...]:
    """
    Find the literal secrets in ``text``; non-overlapping, in order.

    Examples:
        >>> [s.kind for s in find_secrets("curl -H 'Authorization: Bearer abcdefgh12345'")]
        ['bearer-token']
    """
    found: list[Secret] = []
    for pattern in PATTERNS:
        for match in pattern.regex.finditer(text):
            start, end = match.span(1)
            value = text[start:end]
            if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
                start, end = start + 1, end - 1
                value = value[1:-1]
            if len(value) < _MIN_SECRET or _NOT_SECRET.match(value):
                continue
            if any(start < s.end and s.start < end for s in found):
                continue
            found.append(Secret(start, end, pattern.kind))
    # A secret found once is a secret wherever else it is written
    # (`curl -u admin:S … && echo S`, `${X:-S}`): mask every other copy that
    # stands as a token of its own. Only values that look generated (long,
    # letters and digits) spread, so a pattern's false positive in code
    # (`password='password'`, `user = conn_params.get(…)`) does not.
    for secret in list(found):
        value = text[secret.start : secret.end]
        if not _REPEATABLE.search(value):
            continue
        for match in re.finditer(rf"(?<![A-Za-z0-9_]){re.escape(value)}(?![A-Za-z0-9_])", text):
            start, end = match.span()
            if not any(start < s.end and s.start < end for s in found):
                found.append(Secret(start, end, secret.kind))
    found.sort()
    return tuple(found)


class Redactor:
    """Masks the secrets of one source in any value cut from it."""

    __slots__ = ("_secrets", "_text")

    def __init__(self, text: str, secrets: Iterable[Secret] | None = None) -> None:
        self._text = text
        self._secrets = tuple(find_secrets(text) if secrets is None else secrets)

    @property
    def secrets(self) -> tuple[Secret, ...]:
        """The secrets found, in order."""
        return self._secrets

    def __bool__(self) -> bool:
        return bool(self._secrets)

    def _inside(self, start: int, end: int) -> list[Secret]:
        return [s for s in self._secrets if s.start < end and start < s.end]

    def mask(self, start: int, end: int) -> str:
        """The source text ``start:end`` with each secret in it replaced by ``<kind>``."""
        secrets = self._inside(start, end)
        if not secrets:
            return self._text[start:end]
        out: list[str] = []
        position = start
        for secret in secrets:
            lo = max(secret.start, start)
            out.append(self._text[position:lo])
            out.append(f"<{secret.kind}>")
            position = min(secret.end, end)
        out.append(self._text[position:end])
        return "".join(out)

    def value(self, start: int, end: int, text: str | None = None) -> PlannedValue:
        """
        Publish the source text ``start:end`` (or ``text``, a value derived from it).

        Plain when no secret overlaps the span; else redacted, with the kind of
        the first secret, a fingerprint of all of them, and the masked text when
        the span holds more than the secret itself.
        """
        secrets = self._inside(start, end)
        if not secrets:
            return Plain(self._text[start:end] if text is None else text)
        joined = "\x00".join(self._text[s.start : s.end] for s in secrets)
        only_secret = len(secrets) == 1 and secrets[0].start <= start and end <= secrets[0].end
        masked = None if only_secret else self.mask(start, end)
        return Redacted(secrets[0].kind, fingerprint(joined), masked)

    def text(self, value: str) -> str:
        """Mask secrets in a text not cut from the source (found afresh)."""
        return Redactor(value).mask(0, len(value))

    def scrub(self, derived: str) -> str:
        """
        Mask every literal copy of this source's secrets in a string derived from it.

        For strings that are not `PlannedValue`s and have no span of their own
        — a command name, a refusing option, a sentence or reason quoting a
        word — so that a secret never leaves the process through them.
        """
        for secret in sorted(self._secrets, key=lambda s: s.start - s.end):  # longest first
            value = self._text[secret.start : secret.end]
            if value in derived:
                derived = derived.replace(value, f"<{secret.kind}>")
        return derived
