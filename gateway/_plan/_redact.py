"""
Redaction: find literal secrets in a call's text and publish them masked.

The secret patterns live here and nowhere else. Detection is span-based over
the whole source, so every value cut from the source — an argument, an
assignment, a redirect target, a heredoc body, a rendered statement, the
source itself — is masked the same way: the secret becomes ``<kind>``, and a
`Redaction` carries the kind and a fingerprint.

Detection is linear in the text, whatever it holds:

* **a literal prefilter**: one case-insensitive scan finds which of the
  patterns' literals (``akia``, ``ghp_``, ``password``, ``mysql``…) occur, and
  a pattern runs only when one of its literals does — most texts run none;
* **linear patterns only**: no pattern may scan far and then fail and start
  again a character later. Where a match needs a long run of characters,
  the pattern may start only at the beginning of the run (a look-behind), or
  its run is bounded; where it needs a program and then an option of that
  program, the text is cut into its command segments once and each segment
  is searched once (`_SEGMENT_RULES`), so ``mysql mysql mysql …`` costs one
  pass, not one per ``mysql``;
* a found secret that looks generated is masked wherever else it is written,
  in one scan for all of them, and the spans are kept sorted, so cutting a
  value out of the source costs a bisection, not a pass over every secret.

Fingerprints are PBKDF2-SHA256 (20,000 rounds, a fixed salt) cut to 12 hex
digits: equal secrets compare equal across plans and gateways, and reading a
secret back needs a brute-force search made slow on purpose. One `Redactor`
computes at most `MAX_FINGERPRINTS` of them; past that (a text stuffed with
secrets to make its review slow) the rest carry `OVERFLOW_FINGERPRINT`, which
says nothing about the secret. Digests are computed from the *unredacted*
plan, so a redacted plan still binds the exact command.
"""

from __future__ import annotations

import hashlib
import re
from bisect import bisect_right
from collections.abc import Iterable, Iterator
from functools import lru_cache
from typing import Final, NamedTuple

from gateway._calls._plans import Plain, PlannedValue, Redacted

__all__ = [
    "MAX_FINGERPRINTS",
    "OVERFLOW_FINGERPRINT",
    "Redactor",
    "Secret",
    "find_secrets",
    "fingerprint",
    "key_kind",
]

_VALUE: Final = r"""("[^"\n]*"|'[^'\n]*'|[^\s'"`;&|<>()]+)"""


class _Pattern(NamedTuple):
    kind: str
    regex: re.Pattern[str]
    needles: tuple[str, ...]


def _p(kind: str, pattern: str, needles: tuple[str, ...], flags: int = 0) -> _Pattern:
    return _Pattern(kind, re.compile(pattern, flags), needles)


# Order matters: earlier patterns win where spans overlap. Each pattern names
# the literals (lower case) one of which every match contains.
PATTERNS: Final = (
    _p(
        "private-key",
        r"(-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----.*?(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|\Z))",
        ("private key",),
        re.DOTALL,
    ),
    _p(
        "aws-access-key",
        r"\b((?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[0-9A-Z]{16})\b",
        ("akia", "asia", "agpa", "aida", "aroa", "anpa", "anva", "aipa"),
    ),
    _p(
        "aws-secret-key",
        # `=`/`:` or plain blanks: `aws configure set aws_secret_access_key KEY`.
        r"(?i)aws_?secret_?access_?key[\"']?(?:\s*[=:]\s*|\s+)[\"']?([A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])",
        ("secret",),
    ),
    _p(
        "github-token",
        r"\b((?:gh[pousr]_[A-Za-z0-9]{30,255})|(?:github_pat_[A-Za-z0-9_]{22,255}))",
        ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
    ),
    _p("gitlab-token", r"\b(glpat-[A-Za-z0-9_-]{20,})", ("glpat-",)),
    _p("slack-token", r"\b(xox[abposr]-[A-Za-z0-9-]{10,})", ("xox",)),
    _p(
        "slack-webhook",
        r"(https://hooks\.slack\.com/services/[A-Za-z0-9/_-]{20,})",
        ("hooks.slack.com",),
    ),
    _p("anthropic-api-key", r"\b(sk-ant-[A-Za-z0-9_-]{20,})", ("sk-ant-",)),
    _p("openai-api-key", r"\b(sk-(?:proj-|svcacct-)?[A-Za-z0-9_-]{20,})", ("sk-",)),
    _p("stripe-key", r"\b((?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,})", ("_live_", "_test_")),
    _p("google-api-key", r"\b(AIza[0-9A-Za-z_-]{35})", ("aiza",)),
    _p("npm-token", r"\b(npm_[A-Za-z0-9]{36})", ("npm_",)),
    _p("huggingface-token", r"\b(hf_[A-Za-z0-9]{30,})", ("hf_",)),
    _p("vault-token", r"\b(hv[sbr]\.[A-Za-z0-9_-]{24,})", ("hvs.", "hvb.", "hvr.")),
    # Starts only where a run of token characters starts: `eyJ-eyJ-eyJ-…`
    # would otherwise be scanned to its end once per `eyJ`.
    _p(
        "jwt",
        r"(?<![A-Za-z0-9_-])(eyJ[A-Za-z0-9_-]{8,}+\.eyJ[A-Za-z0-9_-]{8,}+\.[A-Za-z0-9_-]{8,})",
        ("eyj",),
    ),
    _p("bearer-token", r"(?i)\bbearer\s+([A-Za-z0-9._~+/=-]{8,})", ("bearer",)),
    _p(
        "basic-auth",
        r"(?i)\bauthorization:\s*basic\s+([A-Za-z0-9+/=]{8,})",
        ("authorization",),
    ),
    # The scheme starts only where a run of scheme characters starts.
    _p(
        "url-credentials",
        r"(?<![a-zA-Z0-9+.-])[a-zA-Z][a-zA-Z0-9+.-]*+://[^/\s:@'\"]++:([^/\s@'\"]++)@",
        ("://",),
    ),
    _p(
        "password",
        r"(?i)(?:--password|--passwd|--pass|--pwd|--db-password|--admin-password|--client-secret)(?:=|\s+)"
        + _VALUE,
        ("--pass", "--pwd", "--db-password", "--admin-password", "--client-secret"),
    ),
    _p(
        "password",
        r"(?:\s|^)(?:-u|--user)(?:=|\s+)['\"]?[^\s:'\"]++:([^\s'\"]+)",
        ("-u", "--user"),
    ),
    _p("password", r"\bsshpass\s+-p\s*" + _VALUE, ("sshpass",)),
    _p("password", r"\s-pass(?:in|out)?\s+['\"]?pass:([^\s'\"]+)", ("pass:",)),
    _p(
        "password",
        r"(?:\s|^)(?:-U|--user)(?:=|\s+)['\"]?[^\s%'\"]++%([^\s'\"]+)",
        ("-u", "--user"),
    ),
    _p(
        "password",
        r"(?i)\b[A-Za-z0-9_]*(?:password|passwd|pass_?word)[\"']?\s*[=:]\s*" + _VALUE,
        ("passw", "pass_word"),
    ),
    _p(
        "generic-api-key",
        r"(?i)\b(?:x-api-key|api-key|apikey|x-auth-token|private-token|x-access-token)\s*:\s*([A-Za-z0-9._~+/=-]{8,})",
        ("api-key", "apikey", "-token"),
    ),
    _p(
        "generic-api-key",
        r"(?i)\b[A-Za-z0-9_]*(?:api_?key|apikey|secret_?key|access_?token|auth_?token|client_?secret|secret|token)[\"']?\s*[=:]\s*"
        + _VALUE,
        ("key", "token", "secret"),
    ),
)


class _SegmentRule(NamedTuple):
    """A program, then (in the same command segment, after it) the option that takes its password."""

    kind: str
    program: re.Pattern[str]
    option: re.Pattern[str]
    needles: tuple[str, ...]


def _segment_rule(program: str, option: str, needles: tuple[str, ...]) -> _SegmentRule:
    return _SegmentRule("password", re.compile(program), re.compile(option + _VALUE), needles)


# `mysql -pSECRET`, `docker login -p SECRET`, `az login -p`, `redis-cli -a`,
# `ldapsearch -w`: the option belongs to the program only within one command
# segment (up to a newline, `|`, `;` or `&`).
_SEGMENT_RULES: Final = (
    _SegmentRule(
        "password",
        re.compile(r"\bmysql(?:dump|admin)?\b"),
        re.compile(r"\s-p([^\s'\"-][^\s'\"]*)"),
        ("mysql",),
    ),
    _segment_rule(
        r"\b(?:docker|podman|nerdctl|buildah|skopeo|az)\s+login\b",
        r"\s-p\s*",
        ("login",),
    ),
    _segment_rule(r"\bredis-cli\b", r"\s-a\s*", ("redis-cli",)),
    _segment_rule(
        r"\bldap(?:search|add|modify|delete|passwd|whoami|compare|modrdn|exop)\b",
        r"\s-w\s*",
        ("ldap",),
    ),
)
_SEGMENT: Final = re.compile(r"[^\n|;&]+")
# Where the segment rules stand among the patterns: after `sshpass`, before `-pass pass:`.
_SPLIT: Final = next(i for i, p in enumerate(PATTERNS) if "sshpass" in p.needles) + 1
_RULES: Final[tuple[_Pattern | _SegmentRule, ...]] = (
    *PATTERNS[:_SPLIT],
    *_SEGMENT_RULES,
    *PATTERNS[_SPLIT:],
)

_MIN_SECRET: Final = 4
_REPEATABLE: Final = re.compile(r"^(?=.{8,}$)(?=.*[0-9])(?=.*[A-Za-z])", re.DOTALL)
# Values that are clearly not secrets: placeholders and shell expansions.
_NOT_SECRET: Final = re.compile(
    r"^(?:\$.*|<[^>]*>|\*+|x+|\.\.\.|true|false|null|none|yes|no)$", re.IGNORECASE
)
_ALL_NEEDLES: Final = frozenset(n for rule in _RULES for n in rule.needles)


def _needle_trie(needles: Iterable[str]) -> str:
    """
    A regular expression that matches where any of ``needles`` starts, branching a character at a time.

    An alternation of the needles themselves tries each at every position;
    this one tests one character and follows one branch. A needle another
    needle begins with ends its branch (finding ``sk-`` is enough to know a
    needle is present, whether or not ``sk-ant-`` follows).
    """
    branches: dict[str, list[str]] = {}
    for needle in needles:
        branches.setdefault(needle[0], []).append(needle[1:])
    alternatives = [
        re.escape(first) if "" in rests else re.escape(first) + "(?:" + _needle_trie(rests) + ")"
        for first, rests in sorted(branches.items())
    ]
    return "|".join(alternatives)


_ANY_NEEDLE: Final = re.compile(_needle_trie(_ALL_NEEDLES))
"""Whether a lowered text holds any needle: nineteen texts in twenty hold none."""
MAX_FINGERPRINTS: Final = 64
"""Slow fingerprints one `Redactor` computes; past them, `OVERFLOW_FINGERPRINT`."""
OVERFLOW_FINGERPRINT: Final = "0" * 12
"""The fingerprint of a secret past `MAX_FINGERPRINTS` in one text: it says nothing about the secret."""


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


@lru_cache(maxsize=256)
def find_secrets(text: str) -> tuple[Secret, ...]:
    """
    Find the literal secrets in ``text``; non-overlapping, in order.

    Linear in the text (see the module's docstring); the last few hundred
    texts are remembered, so a text read again for another value of the same
    call is not scanned again.

    Examples:
        >>> [s.kind for s in find_secrets("curl -H 'Authorization: Bearer abcdefgh12345'")]
        ['bearer-token']
    """
    lower = text.lower()
    if _ANY_NEEDLE.search(lower) is None:
        return ()
    present = {needle for needle in _ALL_NEEDLES if needle in lower}
    found = _Spans()
    for rule in _RULES:
        if present.isdisjoint(rule.needles):
            continue
        if isinstance(rule, _Pattern):
            for match in rule.regex.finditer(text):
                found.add(text, *match.span(1), rule.kind)
        else:
            for start, end in _password_options(text, rule):
                found.add(text, start, end, rule.kind)
    # A secret found once is a secret wherever else it is written
    # (`curl -u admin:S … && echo S`, `${X:-S}`): mask every other copy that
    # stands as a token of its own. Only values that look generated (long,
    # letters and digits) spread, so a pattern's false positive in code
    # (`password='password'`, `user = conn_params.get(…)`) does not.
    kinds: dict[str, str] = {}
    for secret in found.secrets:
        value = text[secret.start : secret.end]
        if _REPEATABLE.search(value):
            kinds.setdefault(value, secret.kind)
    if kinds:
        copies = re.compile(
            "(?<![A-Za-z0-9_])(?:"
            + "|".join(re.escape(v) for v in sorted(kinds, key=lambda v: (-len(v), v)))
            + ")(?![A-Za-z0-9_])"
        )
        for match in copies.finditer(text):
            found.add(text, match.start(), match.end(), kinds[match.group()], quoted=False)
    return tuple(found.secrets)


class _Spans:
    """The secrets found so far, sorted and non-overlapping; an overlapping candidate loses."""

    __slots__ = ("_starts", "secrets")

    def __init__(self) -> None:
        self.secrets: list[Secret] = []
        self._starts: list[int] = []

    def add(self, text: str, start: int, end: int, kind: str, *, quoted: bool = True) -> None:
        value = text[start:end]
        if quoted and len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            start, end = start + 1, end - 1
            value = value[1:-1]
        if len(value) < _MIN_SECRET or _NOT_SECRET.match(value):
            return
        index = bisect_right(self._starts, start)
        if index > 0 and self.secrets[index - 1].end > start:
            return
        if index < len(self.secrets) and self.secrets[index].start < end:
            return
        self._starts.insert(index, start)
        self.secrets.insert(index, Secret(start, end, kind))


def _password_options(text: str, rule: _SegmentRule) -> Iterator[tuple[int, int]]:
    """Spans of the option values a program takes its password in, segment by segment, in one pass."""
    for segment in _SEGMENT.finditer(text):
        position, end = segment.span()
        while True:
            program = rule.program.search(text, position, end)
            if program is None:
                break
            option = rule.option.search(text, program.end(), end)
            if option is None:
                break
            yield option.span(1)
            position = option.end()


def key_kind(key: str) -> str | None:
    """
    The kind of secret a mapping key names (``password``, ``DB_PASSWORD``, ``api_key``…), if any.

    The key-name half of the value patterns: a key the patterns would read as
    the name in ``KEY=value`` or ``KEY: value`` names a secret of that kind.

    Examples:
        >>> key_kind("DB_PASSWORD"), key_kind("GITHUB_TOKEN"), key_kind("path")
        ('password', 'generic-api-key', None)
    """
    if len(key) > 200:
        return None
    return next((kind for kind, pattern in _KEY_NAMES if pattern.search(key)), None)


_KEY_NAMES: Final = (
    ("aws-secret-key", re.compile(r"(?i)aws_?secret_?access_?key[\"']?$")),
    ("password", re.compile(r"(?i)\b[A-Za-z0-9_]*(?:password|passwd|pass_?word)[\"']?$")),
    (
        "generic-api-key",
        re.compile(
            r"(?i)\b(?:x-api-key|api-key|apikey|x-auth-token|private-token|x-access-token)$"
        ),
    ),
    (
        "generic-api-key",
        re.compile(
            r"(?i)\b[A-Za-z0-9_]*(?:api_?key|apikey|secret_?key|access_?token|auth_?token|client_?secret|secret|token)[\"']?$"
        ),
    ),
)


class Redactor:
    """Masks the secrets of one source in any value cut from it."""

    __slots__ = ("_copies", "_ends", "_fingerprints", "_secrets", "_text")

    def __init__(self, text: str, secrets: Iterable[Secret] | None = None) -> None:
        self._text = text
        self._secrets = tuple(sorted(find_secrets(text) if secrets is None else secrets))
        self._ends = [secret.end for secret in self._secrets]
        self._fingerprints: dict[str, str] = {}
        self._copies: re.Pattern[str] | None = None

    @property
    def secrets(self) -> tuple[Secret, ...]:
        """The secrets found, in order."""
        return self._secrets

    def __bool__(self) -> bool:
        return bool(self._secrets)

    def _inside(self, start: int, end: int) -> list[Secret]:
        if not self._secrets:
            return []  # most sources hold none: every value of them is plain
        inside: list[Secret] = []
        index = bisect_right(self._ends, start)
        while index < len(self._secrets) and self._secrets[index].start < end:
            inside.append(self._secrets[index])
            index += 1
        return inside

    def _fingerprint(self, joined: str) -> str:
        known = self._fingerprints.get(joined)
        if known is None:
            known = (
                fingerprint(joined)
                if len(self._fingerprints) < MAX_FINGERPRINTS
                else OVERFLOW_FINGERPRINT
            )
            self._fingerprints[joined] = known
        return known

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
        return Redacted(secrets[0].kind, self._fingerprint(joined), masked)

    def text(self, value: str) -> str:
        """Mask secrets in a text not cut from the source (found afresh)."""
        return Redactor(value).mask(0, len(value))

    def scrub(self, derived: str) -> str:
        """
        Mask every literal copy of this source's secrets in a string derived from it.

        For strings that are not `PlannedValue`s and have no span of their own
        — a command name, a refusing option, a sentence or reason quoting a
        word — so that a secret never leaves the process through them. One
        scan, longest secret first where copies overlap.
        """
        if not self._secrets:
            return derived
        kinds: dict[str, str] = {}
        for secret in self._secrets:
            kinds.setdefault(self._text[secret.start : secret.end], secret.kind)
        if self._copies is None:
            self._copies = re.compile(
                "|".join(re.escape(v) for v in sorted(kinds, key=lambda v: (-len(v), v)))
            )
        return self._copies.sub(lambda match: f"<{kinds[match.group()]}>", derived)
