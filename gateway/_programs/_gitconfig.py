"""
git's configuration as a language: the keys whose values git runs, and a reader for its files.

Many git settings name code that git runs later: a pager, an editor, an
``fsmonitor`` hook, textconv and external diff drivers, clean/smudge
filters, credential helpers, the ssh command, aliases that start with ``!``…
`GIT_CODE_KEYS` lists them, once, by pattern (``diff.*.textconv``: ``*`` stands
for one subsection), with what kind of code each names. The same table
serves two readers: ``git -c KEY=VALUE`` on a command line
(`gateway._programs._git`), and the configuration files a repository
carries, which the gateway reads at review time (`gateway._programs._git_trust`).

`read_config` tokenizes a git configuration file the way git's ``config.c``
does (sections, quoted subsections, the old ``[section.sub]`` form, comments,
quoting, escapes and continuation lines); what git would refuse to read is
an error here too, never a guess. `split_alias` splits an alias the way
git's ``split_cmdline`` does. Pure: no file is opened in this module.
"""

from __future__ import annotations

from typing import Final, Literal, NamedTuple

__all__ = [
    "GIT_CODE_KEYS",
    "GIT_FILE_KEYS",
    "PLAIN_KEYS",
    "CodeKind",
    "ConfigEntry",
    "ConfigError",
    "git_code_key",
    "git_file_key",
    "key_name",
    "read_config",
    "split_alias",
]

CodeKind = Literal["shell", "program", "include", "hooks", "transport", "template"]
"""
What a code key's value is to git.

``shell``: text git runs through the shell (a pager, an editor, an alias
starting with ``!``, a filter). ``program``: a program git runs (gpg, a
textconv, a credential helper that is a path). ``include``: another
configuration file, whose keys then apply. ``hooks``: the directory git runs
hooks from. ``transport``: a setting that changes which program a fetch or
push runs (``url.*.insteadOf`` can turn an address into ``ext::``, which
runs a command once ``protocol.ext.allow`` allows it). ``template``: a
directory copied into new repositories, hooks included.
"""

# fmt: off
GIT_CODE_KEYS: Final[dict[str, CodeKind]] = {
    # pagers and editors
    "core.pager": "shell", "pager.*": "shell", "core.editor": "shell",
    "sequence.editor": "shell", "interactive.difffilter": "shell",
    # the work tree and the index
    "core.fsmonitor": "shell", "core.hookspath": "hooks", "hook.*.command": "shell",
    "init.templatedir": "template",
    # diffs, merges, filters
    "diff.external": "shell", "diff.*.command": "shell", "diff.*.textconv": "shell",
    "filter.*.clean": "shell", "filter.*.smudge": "shell", "filter.*.process": "shell",
    "merge.*.driver": "shell", "difftool.*.cmd": "shell", "difftool.*.path": "program",
    "mergetool.*.cmd": "shell", "mergetool.*.path": "program", "diff.tool": "program",
    "diff.guitool": "program", "merge.tool": "program", "merge.guitool": "program",
    "tar.*.command": "shell", "trailer.*.cmd": "shell", "trailer.*.command": "shell",
    "submodule.*.update": "shell",
    # signing
    "gpg.program": "program", "gpg.*.program": "program", "gpg.ssh.defaultkeycommand": "shell",
    # transports and credentials
    "core.sshcommand": "shell", "core.gitproxy": "program", "core.askpass": "program",
    "credential.helper": "shell", "credential.*.helper": "shell",
    "remote.*.uploadpack": "shell", "remote.*.receivepack": "shell", "remote.*.vcs": "program",
    "core.alternaterefscommand": "shell", "uploadpack.packobjectshook": "shell",
    "protocol.allow": "transport", "protocol.*.allow": "transport",
    "url.*.insteadof": "transport", "url.*.pushinsteadof": "transport",
    "imap.tunnel": "shell", "sendemail.sendmailcmd": "shell", "sendemail.smtpserver": "program",
    "sendemail.tocmd": "shell", "sendemail.cccmd": "shell", "sendemail.headercmd": "shell",
    # help and browsers
    "man.viewer": "program", "man.*.cmd": "shell", "man.*.path": "program",
    "help.browser": "program", "web.browser": "program", "browser.*.cmd": "shell",
    "browser.*.path": "program", "instaweb.browser": "program", "instaweb.httpd": "program",
    # aliases (code when they start with `!`; otherwise a git command)
    "alias.*": "shell",
    # more configuration
    "include.path": "include", "includeif.*.path": "include",
}
# fmt: on
"""Every configuration key git reads as code, or that brings code in, by pattern → its kind."""

PLAIN_KEYS: Final = frozenset(
    {
        "user.name", "user.email", "author.name", "author.email", "committer.name",
        "committer.email", "init.defaultbranch", "core.autocrlf", "core.eol", "core.filemode",
        "core.ignorecase", "core.symlinks", "core.bare", "core.repositoryformatversion",
        "core.logallrefupdates", "core.quotepath", "core.precomposeunicode", "core.safecrlf",
        "core.whitespace", "core.abbrev", "core.sparsecheckout", "extensions.objectformat",
        "extensions.worktreeconfig", "pull.rebase", "pull.ff", "push.default",
        "push.autosetupremote", "fetch.prune", "merge.ff", "merge.conflictstyle",
        "rebase.autosquash", "rebase.autostash", "rebase.updaterefs", "commit.gpgsign",
        "tag.gpgsign", "gpg.format", "color.ui", "column.ui", "diff.renames",
        "diff.algorithm", "status.showuntrackedfiles", "branch.autosetupmerge",
        "branch.autosetuprebase", "advice.detachedhead", "log.date", "format.pretty",
    }
)  # fmt: skip
"""
Keys whose value is a name, an address or a setting, never a credential: ``git config
--get`` of one of them prints nothing secret. Any other key may hold one (a token in
``remote.origin.url`` or ``url.*.insteadOf``, ``http.extraHeader``, an included
``~/.pypirc``), so printing it is reading the files it comes from.
"""

GIT_FILE_KEYS: Final = frozenset(
    {
        "blame.ignorerevsfile", "mailmap.file", "core.excludesfile", "core.attributesfile",
        "commit.template", "diff.orderfile", "user.signingkey", "gpg.ssh.allowedsignersfile",
        "gpg.ssh.revocationfile", "http.cookiefile", "http.sslcert", "http.sslkey",
        "http.sslcainfo", "http.sslcapath", "http.*.cookiefile", "http.*.sslcert",
        "http.*.sslkey", "http.*.sslcainfo", "http.*.sslcapath", "format.signaturefile",
        "sendemail.aliasesfile",
    }
)  # fmt: skip
"""
Keys whose value names a file git reads (and may print: ``git blame`` shows an
``ignoreRevsFile`` line it cannot parse), by pattern (``*``: one subsection).
"""

_BY_SECTION: Final[dict[str, list[tuple[str | None, str, str]]]] = {}
for _pattern in GIT_CODE_KEYS:
    _parts = _pattern.split(".")
    _sub = None if len(_parts) == 2 else _parts[1]
    _BY_SECTION.setdefault(_parts[0], []).append((_sub, _parts[-1], _pattern))


def key_name(name: str) -> str:
    """A key as git compares it: section and variable lowercased, a subsection kept as written."""
    section, dot, rest = name.partition(".")
    if not dot:
        return name.lower()
    subsection, dot2, variable = rest.rpartition(".")
    if not dot2:
        return f"{section.lower()}.{rest.lower()}"
    return f"{section.lower()}.{subsection}.{variable.lower()}"


def git_code_key(name: str) -> str | None:
    """
    The `GIT_CODE_KEYS` pattern a configuration key matches, or ``None``.

    >>> git_code_key("Diff.pdf.TEXTCONV"), git_code_key("core.PAGER"), git_code_key("user.name")
    ('diff.*.textconv', 'core.pager', None)
    """
    section, dot, rest = name.partition(".")
    if not dot:
        return None
    subsection, dot2, variable = rest.rpartition(".")
    has_sub = bool(dot2)
    variable = (variable if has_sub else rest).lower()
    for sub, key, pattern in _BY_SECTION.get(section.lower(), ()):
        if key == "*" and sub is None and not has_sub:
            return pattern  # `alias.*`, `pager.*`: any variable of the section
        if key != variable:
            continue
        if sub is None and not has_sub:
            return pattern
        if sub == "*" and has_sub:
            return pattern
        if sub is not None and sub != "*" and has_sub and subsection.lower() == sub:
            return pattern
    return None


def git_file_key(name: str) -> bool:
    """
    Whether a configuration key names a file git reads (`GIT_FILE_KEYS`).

    >>> git_file_key("Blame.IgnoreRevsFile"), git_file_key("http.https://x.sslKey"), git_file_key("user.name")
    (True, True, False)
    """
    section, dot, rest = name.partition(".")
    if not dot:
        return False
    _, dot2, variable = rest.rpartition(".")
    if not dot2:
        return f"{section.lower()}.{rest.lower()}" in GIT_FILE_KEYS
    return f"{section.lower()}.*.{variable.lower()}" in GIT_FILE_KEYS


class ConfigError(Exception):
    """A configuration file git would refuse to read; the message says where."""


class ConfigEntry(NamedTuple):
    """One ``section[.subsection].key = value`` of a configuration file (``value`` ``None``: a bare key, true)."""

    name: str
    value: str | None
    line: int


_SECTION_CHARS: Final = frozenset(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-."
)
_KEY_CHARS: Final = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-")
_ESCAPES: Final = {"n": "\n", "t": "\t", "b": "\b", '"': '"', "\\": "\\"}


class _Config:
    """A cursor over one configuration file's text."""

    def __init__(self, text: str) -> None:
        self.text = text.removeprefix("\ufeff")
        self.at = 0
        self.line = 1

    def peek(self) -> str:
        return self.text[self.at] if self.at < len(self.text) else ""

    def take(self) -> str:
        char = self.peek()
        self.at += 1
        if char == "\n":
            self.line += 1
        return char

    def fail(self) -> ConfigError:
        return ConfigError(f"bad config line {self.line}")

    def blanks(self) -> None:
        while self.peek() in (" ", "\t", "\r") and self.peek():
            self.at += 1

    def comment(self) -> None:
        while self.peek() not in ("", "\n"):
            self.at += 1

    def section(self) -> str:
        """After ``[``: ``name]``, ``name "subsection"]``, or the old ``name.sub]``."""
        start = self.at
        while self.peek() in _SECTION_CHARS and self.peek():
            self.at += 1
        name = self.text[start : self.at].lower()
        if not name:
            raise self.fail()
        if self.peek() == "]":
            self.at += 1
            return name
        if self.peek() not in (" ", "\t"):
            raise self.fail()
        self.blanks()
        if self.take() != '"':
            raise self.fail()
        subsection: list[str] = []
        while True:
            char = self.take()
            if char in ("", "\n"):
                raise self.fail()
            if char == '"':
                break
            if char == "\\":
                char = self.take()
                if char in ("", "\n"):
                    raise self.fail()
            subsection.append(char)
        if self.take() != "]":
            raise self.fail()
        return f"{name}.{''.join(subsection)}"

    def value(self) -> str:
        """After ``=``: the value, unquoted and unescaped, up to the end of its (continued) line."""
        parts: list[str] = []
        quoted = False
        # git turns each blank between words into one space, and drops trailing ones.
        pending_space = 0
        while True:
            char = self.peek()
            if char in ("", "\n"):
                if quoted:
                    raise self.fail()
                return "".join(parts)
            self.at += 1
            if char == "\r" and self.peek() == "\n":
                continue
            if not quoted and char in ("#", ";"):
                self.comment()
                return "".join(parts)
            if not quoted and char in (" ", "\t"):
                if parts:
                    pending_space += 1
                continue
            if pending_space:
                parts.append(" " * pending_space)
                pending_space = 0
            if char == '"':
                quoted = not quoted
            elif char == "\\":
                escaped = self.take()
                if escaped == "\n":
                    continue
                if escaped == "\r" and self.peek() == "\n":
                    self.take()
                    continue
                if escaped not in _ESCAPES:
                    raise self.fail()
                parts.append(_ESCAPES[escaped])
            else:
                parts.append(char)


def read_config(text: str) -> list[ConfigEntry]:
    """
    Every entry of a git configuration file, in order, names as git compares them.

    Raises:
        ConfigError: git would refuse the file (and stop: nothing it configures would run).

    >>> [(e.name, e.value) for e in read_config('[core] pager = less\\n[diff "pdf"]\\n\\ttextconv = pdftotext')]
    [('core.pager', 'less'), ('diff.pdf.textconv', 'pdftotext')]
    """
    config = _Config(text)
    entries: list[ConfigEntry] = []
    section: str | None = None
    while config.at < len(config.text):
        char = config.peek()
        if char in (" ", "\t", "\r", "\n"):
            config.take()
            continue
        if char in ("#", ";"):
            config.comment()
            continue
        if char == "[":
            config.at += 1
            section = config.section()
            continue
        if not (char.isascii() and char.isalpha()) or section is None:
            raise config.fail()
        start = config.at
        while config.peek() in _KEY_CHARS and config.peek():
            config.at += 1
        key = config.text[start : config.at].lower()
        line = config.line
        config.blanks()
        following = config.peek()
        value: str | None = None
        if following == "=":
            config.at += 1
            config.blanks()
            value = config.value()
        elif following in ("#", ";"):
            config.comment()
        elif following not in ("", "\n"):
            raise config.fail()
        entries.append(ConfigEntry(key_name(f"{section}.{key}"), value, line))
    return entries


def split_alias(text: str) -> list[str] | None:
    """
    An alias's words as git's ``split_cmdline`` splits them; ``None`` when git would refuse it.

    Single and double quotes group, a backslash escapes one character (outside
    single quotes); blanks separate words.

    >>> split_alias("log --format='%h %s' -5")
    ['log', '--format=%h %s', '-5']
    """
    words: list[str] = []
    current: list[str] = []
    in_word = False
    quote = ""
    at = 0
    while at < len(text):
        char = text[at]
        at += 1
        if quote:
            if char == quote:
                quote = ""
            elif char == "\\" and quote == '"':
                if at >= len(text):
                    return None
                current.append(text[at])
                at += 1
            else:
                current.append(char)
            continue
        if char in (" ", "\t", "\n"):
            if in_word:
                words.append("".join(current))
                current, in_word = [], False
            continue
        in_word = True
        if char in ("'", '"'):
            quote = char
        elif char == "\\":
            if at >= len(text):
                return None
            current.append(text[at])
            at += 1
        else:
            current.append(char)
    if quote:
        return None
    if in_word:
        words.append("".join(current))
    return words
