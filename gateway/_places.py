"""
Where paths lie: the directories and file patterns behind the path classes of effects.

Pure data, the one place these lists live: the default patterns of files that
hold secrets and of files that make code run later, the temporary and system
directories, and the ``[paths]`` table of the configuration that changes them.
The planner (`gateway._plan._paths`) resolves a path and matches it here; it
never consults the file system.

Patterns are globs over a resolved path: ``*`` and ``?`` never cross a ``/``,
``**`` spans any number of directories, ``[…]`` is a class. A pattern starts
with ``~/`` (under the home directory), ``/`` (an absolute path) or ``**/``
(anywhere); a trailing ``/**`` also matches the directory itself.
"""

from __future__ import annotations

import re
from typing import Final

import msgspec

__all__ = [
    "DEFAULT_PERSISTENCE_PATTERNS",
    "DEFAULT_SECRET_PATTERNS",
    "DEFAULT_TEMP_ROOTS",
    "SECRET_VARIABLE",
    "STREAM_PATHS",
    "SYSTEM_ROOTS",
    "PathsSection",
]

DEFAULT_SECRET_PATTERNS: Final = (
    "~/.ssh/**",
    "**/.ssh/id_*",
    "**/id_rsa*",
    "**/id_dsa*",
    "**/id_ecdsa*",
    "**/id_ed25519*",
    "~/.aws/**",
    "~/.azure/**",
    "~/.config/gcloud/**",
    "~/.kube/**",
    "~/.docker/config.json",
    "~/.gnupg/**",
    "~/.password-store/**",
    "~/.local/share/keyrings/**",
    "~/.netrc",
    "~/.git-credentials",
    "~/.config/git/credentials",
    "~/.npmrc",
    "~/.pypirc",
    "~/.gem/credentials",
    "~/.cargo/credentials*",
    "~/.config/gh/hosts.yml",
    "~/.terraform.d/credentials.tfrc.json",
    "~/.vault-token",
    "~/.claude/.credentials.json",
    "~/.codex/auth.json",
    "~/.*_history",
    "**/.env",
    "**/.env.*",
    "**/*.pem",
    "**/*.key",
    "**/*.p12",
    "**/*.pfx",
    "**/*.keystore",
    "**/*.jks",
    "**/credentials.json",
    "**/service-account*.json",
    "**/.htpasswd",
    "**/*.tfstate",
    "**/*.tfstate.backup",
    "/proc/*/root/**",  # another view of every file: `/proc/self/root/home/u/.ssh/id_rsa`
    "/proc/*/cwd/**",
    "/etc/shadow",
    "/etc/gshadow",
    "/etc/sudoers",
    "/etc/sudoers.d/**",
    "/etc/ssh/ssh_host_*",
    "/proc/*/environ",
)
"""Files that hold credentials or keys (reading one may leak it; writing one may plant access)."""

DEFAULT_PERSISTENCE_PATTERNS: Final = (
    "**/.bashrc",
    "**/.bash_profile",
    "**/.bash_login",
    "**/.bash_logout",
    "**/.profile",
    "**/.zshrc",
    "**/.zshenv",
    "**/.zprofile",
    "**/.zlogin",
    "**/.zlogout",
    "**/.kshrc",
    "**/.cshrc",
    "**/.tcshrc",
    "**/.config/fish/**",
    "**/.inputrc",
    "**/.pam_environment",
    "~/.config/environment.d/**",
    "~/.config/autostart/**",
    "~/.config/systemd/user/**",
    "~/.local/share/systemd/user/**",
    "~/.local/bin/**",
    "~/bin/**",
    "~/Library/LaunchAgents/**",
    "~/.ssh/authorized_keys*",
    "~/.ssh/rc",
    "~/.ssh/config",
    "~/.gitconfig",
    "~/.config/git/**",
    "~/.config/go/env",
    "~/.vimrc",
    "~/.config/nvim/**",
    "~/.emacs",
    "~/.emacs.d/**",
    "~/.tmux.conf",
    "~/.xinitrc",
    "~/.xprofile",
    "~/.xsession",
    "~/.npmrc",
    "~/.claude.json",
    "**/.git/config",
    "**/.git/hooks/**",
    "**/.git/commondir",
    "**/.git/config.worktree",
    "**/.git/worktrees/*/commondir",
    "**/.git/worktrees/*/config.worktree",
    "**/.git/modules/**/config",
    "**/.git/modules/**/hooks/**",
    "**/*.git/config",
    "**/*.git/hooks/**",
    "**/.git/info/attributes",
    "**/.gitmodules",
    "**/.github/workflows/**",
    "**/.github/actions/**",
    "**/.gitlab-ci.yml",
    "**/.circleci/**",
    "**/.travis.yml",
    "**/.buildkite/**",
    "**/azure-pipelines.yml",
    "**/Jenkinsfile",
    "**/.pre-commit-config.yaml",
    "**/.husky/**",
    "**/.envrc",
    "**/.claude/**",
    "**/.codex/**",
    "**/.gemini/**",
    "**/.cursor/**",
    "**/.vscode/**",
    "**/.mcp.json",
    "**/.devcontainer/**",
    "**/.yarnrc",
    "**/.yarnrc.yml",
    "**/rust-toolchain",
    "**/rust-toolchain.toml",
    "/etc/cron*/**",
    "/etc/crontab",
    "/var/spool/cron/**",
    "/etc/profile",
    "/etc/profile.d/**",
    "/etc/bash.bashrc",
    "/etc/environment",
    "/etc/systemd/**",
    "/etc/init.d/**",
    "/etc/rc.local",
    "/etc/ld.so.preload",
)
"""Files that make code run later: shell start-up files, hooks, CI and agent settings, schedulers."""

SECRET_VARIABLE: Final = re.compile(
    r"(?i)(?:^|_)(?:[a-z0-9]*(?:key|token|secret)s?|[a-z0-9]*passw(?:or)?d|passphrase"
    r"|credentials?|auth|private|cookie|pat)(?:_|$)|_pwd(?:_|$)"
)
"""
Variable names that say the variable holds a secret: a part between
underscores that ends in ``KEY``, ``TOKEN`` or ``SECRET`` (`APIKEY`,
`AWS_SECRET_ACCESS_KEY`, `GITHUB_TOKEN`), a password (`DB_PASSWORD`,
`MYSQL_PWD`), ``AUTH``, ``CREDENTIALS``, ``PAT``… — but not `AUTHOR`, `PWD`
or `TOKENIZERS_PARALLELISM`. Reading one by name (``echo "$GITHUB_TOKEN"``,
``printenv API_KEY``) reads a secret, as reading the whole environment does.
Searched (`re.search`) in the name, so it errs towards asking.
"""

DEFAULT_TEMP_ROOTS: Final = ("/tmp", "/var/tmp", "/dev/shm")  # noqa: S108 -- named, not used
"""Temporary directories (class ``temp``)."""

SYSTEM_ROOTS: Final = (
    "/bin",
    "/boot",
    "/dev",
    "/etc",
    "/lib",
    "/lib32",
    "/lib64",
    "/libx32",
    "/opt",
    "/proc",
    "/root",
    "/run",
    "/sbin",
    "/snap",
    "/sys",
    "/usr",
    "/var",
    "/Applications",
    "/Library",
    "/System",
    "/private",
)
"""Directories of the operating system (class ``system``); ``/`` itself is one too."""

STREAM_PATHS: Final = frozenset(
    {
        "/dev/null",
        "/dev/stdin",
        "/dev/stdout",
        "/dev/stderr",
        "/dev/tty",
        "/dev/fd/0",
        "/dev/fd/1",
        "/dev/fd/2",
    }
)
"""The standard streams and the null device (class ``stream``)."""


def _check_patterns(name: str, patterns: tuple[str, ...]) -> None:
    for pattern in patterns:
        if not pattern.startswith(("/", "~/", "**/")) or "//" in pattern:
            raise ValueError(
                f"{name} entries start with '/', '~/' or '**/' and have no empty segment, not {pattern!r}"
            )


class PathsSection(
    msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, rename="kebab"
):
    """
    The ``[paths]`` table: how the planner classifies the paths of effects.

    Attributes:
        home: The home directory, absolute. Unset, the gateway takes its own
            (``$HOME``); paths under it are shown as ``~/…`` either way.
        project_roots: Directories that count as ``workspace`` besides the
            call's working directory.
        temp_roots: Directories that count as ``temp``.
        secret_patterns: Files that hold secrets (replaces the default list).
        extra_secret_patterns: More such files, on top of ``secret-patterns``.
        persistence_patterns: Files that make code run later (replaces the default list).
        extra_persistence_patterns: More such files, on top of ``persistence-patterns``.
    """

    home: str | None = None
    project_roots: tuple[str, ...] = ()
    temp_roots: tuple[str, ...] = DEFAULT_TEMP_ROOTS
    secret_patterns: tuple[str, ...] = DEFAULT_SECRET_PATTERNS
    extra_secret_patterns: tuple[str, ...] = ()
    persistence_patterns: tuple[str, ...] = DEFAULT_PERSISTENCE_PATTERNS
    extra_persistence_patterns: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        for name, roots in (
            ("project-roots", self.project_roots),
            ("temp-roots", self.temp_roots),
            ("home", () if self.home is None else (self.home,)),
        ):
            for root in roots:
                if not root.startswith("/") or root == "/":
                    raise ValueError(
                        f"{name} entries are absolute directories other than '/', not {root!r}"
                    )
        _check_patterns("secret-patterns", self.secret_patterns + self.extra_secret_patterns)
        _check_patterns(
            "persistence-patterns", self.persistence_patterns + self.extra_persistence_patterns
        )
