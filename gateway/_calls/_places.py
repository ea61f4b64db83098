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
(anywhere); a trailing ``/**`` also matches the directory itself
(`pattern_regex` is the one reading of that grammar).

Where a confined run may look (`gateway._review._boundary`) is declared here too: the
system places that hold no credentials (`SYSTEM_READABLE`) and the places
under the home directory where toolchains live (`TOOL_PLACES`).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Final

import msgspec

__all__ = [
    "DEFAULT_PERSISTENCE_PATTERNS",
    "DEFAULT_SECRET_PATTERNS",
    "DEFAULT_TEMP_ROOTS",
    "DEVICES",
    "PROCESS_VIEWS",
    "PROJECT_FILE",
    "SECRET_VARIABLE",
    "SHELL_VARIABLES",
    "STREAM_PATHS",
    "SYSTEM_READABLE",
    "SYSTEM_ROOTS",
    "TOOL_PLACES",
    "PathsSection",
    "holds_home",
    "pattern_regex",
    "shown_variable",
    "tool_place",
]

PROJECT_FILE: Final = ".agent-gateway.toml"
"""The name of a project's own gateway configuration (its project tier), looked for upwards."""

PROCESS_VIEWS: Final = (
    "/proc/*/root/**",
    "/proc/*/cwd/**",
    "/proc/*/fd/**",
    "/proc/*/task/**",
    "/proc/*/map_files/**",
    "/proc/*/environ",
    "/proc/*/mem",
    "/dev/fd/*/**",
)
"""
What a process shows of others: another view of every file
(``/proc/self/root/home/u/.ssh/id_rsa``, ``/proc/1/cwd/…``, a directory
through its descriptor) and a process's environment and memory. A path
through one of these is never judged by where it seems to lead.
"""

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
    "**/.docker/config.json",
    "~/.gnupg/**",
    "~/.password-store/**",
    "~/.local/share/keyrings/**",
    # Copies of these travel: a workspace, /tmp or a backup may hold one.
    "**/.netrc",
    "**/.git-credentials",
    "~/.config/git/credentials",
    "~/.npmrc",
    "**/.pypirc",
    "**/.pgpass",
    "**/.my.cnf",
    "**/.kube/config",
    "**/kubeconfig",
    "~/.gem/credentials",
    "~/.cargo/credentials*",
    "~/.config/gh/hosts.yml",
    "~/.terraform.d/credentials.tfrc.json",
    "**/.vault-token",
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
    *PROCESS_VIEWS,
    "/etc/shadow",
    "/etc/gshadow",
    "/etc/shadow[-~.]*",  # a backup: `/etc/shadow-`, `/etc/shadow.bak`
    "/etc/gshadow[-~.]*",
    "/var/backups/**",
    "/etc/sudoers",
    "/etc/sudoers.d/**",
    "/etc/ssh/ssh_host_*",
    "/etc/ssl/private/**",
    # A cluster's or a database's administrator credentials, kept by the system.
    "/etc/kubernetes/**",
    "/etc/rancher/**",
    "/etc/mysql/debian.cnf",
    "/etc/security/opasswd",
    "/run/secrets/**",
    "/var/run/secrets/**",
    # What a login session keeps in the shared temporary and runtime
    # directories: Kerberos ticket caches, ssh-agent's, tmux's and X11's
    # sockets (whoever reaches one acts as the user), and the per-user
    # runtime directory (gpg-agent, the keyring, container registry logins).
    "/tmp/krb5cc_*",  # noqa: S108 -- a pattern, not a file made
    "/var/tmp/krb5cc_*",  # noqa: S108 -- a pattern, not a file made
    "/tmp/ssh-*/**",  # noqa: S108 -- a pattern, not a file made
    "/tmp/tmux-*/**",  # noqa: S108 -- a pattern, not a file made
    "/tmp/.X11-unix/**",  # noqa: S108 -- a pattern, not a file made
    "/run/user/*/**",
)
"""Files that hold credentials or keys (reading one may leak it; writing one may plant access)."""

DEFAULT_PERSISTENCE_PATTERNS: Final = (
    "**/.bashrc",
    "**/.bash_profile",
    "**/.bash_login",
    "**/.bash_logout",
    "**/.bash_aliases",
    "~/.bashrc.d/**",
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
    # Editors, debuggers, terminals and REPLs: their start-up files and the
    # plugin directories they load from, at every start.
    "~/.vimrc",
    "~/.vim/**",
    "~/.config/vim/**",
    "~/.config/nvim/**",
    "~/.emacs",
    "~/.emacs.el",
    "~/.emacs.d/**",
    "~/.config/emacs/**",
    "~/.config/Code/User/**",
    "~/Library/Application Support/Code/User/**",
    "~/.tmux.conf",
    "~/.config/tmux/**",
    "~/.gdbinit",
    "~/.config/gdb/**",
    "~/.ipython/profile_*/startup/**",
    "~/.ipython/profile_*/ipython_*config.py",
    "~/.oh-my-zsh/**",
    # Build tools' per-user init scripts, run by every build.
    "~/.gradle/init.gradle",
    "~/.gradle/init.gradle.kts",
    "~/.gradle/init.d/**",
    # direnv's own: its standard library additions and the list of allowed `.envrc`s.
    "~/.config/direnv/**",
    "~/.local/share/direnv/allow/**",
    "~/.xinitrc",
    "~/.xprofile",
    "~/.xsession",
    "~/.npmrc",
    "~/.claude.json",
    # The gateway's own state: its audit logs, the approvals it remembers, its
    # hooks' socket (an agent that rewrote them would rewrite its own record).
    "~/.local/state/agent-gateway/**",
    # git: hooks run at commit, checkout, merge, push; its config names
    # programs (`core.fsmonitor`, `core.pager`, filter and diff drivers,
    # `core.hooksPath`) run by nearly every command, and `commondir` or a
    # worktree's config leads to another such config. `.gitattributes` is
    # not one: it only picks a filter or diff driver the config defines.
    # Where a repository really keeps them (the directory `core.hooksPath`
    # names, a `.git` file's git directory) is read from disk at review
    # time: `gateway._programs._git_trust.persistence_points`.
    "**/.git/config",
    "**/.git/hooks/**",
    "**/.git/commondir",
    "**/.git/config.worktree",
    "**/.git/worktrees/*/commondir",
    "**/.git/worktrees/*/config.worktree",
    "**/.git/modules/**/config",
    "**/.git/modules/**/hooks/**",
    "**/.git/modules/**/info/attributes",
    "**/*.git/config",
    "**/*.git/hooks/**",
    "**/.git/info/attributes",
    "**/.gitmodules",
    "**/.githooks/**",
    "**/.husky/**",
    "**/.pre-commit-config.yaml",
    # CI: what runs on the next push, with the repository's secrets.
    "**/.github/workflows/**",
    "**/.github/actions/**",
    "**/.gitlab-ci.yml",
    "**/.circleci/**",
    "**/.travis.yml",
    "**/.buildkite/**",
    "**/azure-pipelines.yml",
    "**/Jenkinsfile",
    "**/.gitea/workflows/**",
    "**/.forgejo/workflows/**",
    "**/.drone.yml",
    "**/.woodpecker.yml",
    "**/.woodpecker/**",
    "**/bitbucket-pipelines.yml",
    "**/.cirrus.yml",
    "**/appveyor.yml",
    "**/.gitpod.yml",
    # Hook managers: what git runs through them at commit.
    "**/lefthook.yml",
    "**/lefthook-local.yml",
    "**/.lefthook.yml",
    "**/.lefthook/**",
    "**/.simple-git-hooks.json",
    "**/.simple-git-hooks.js",
    # Agents' and editors' settings: hooks, MCP servers, tasks, language
    # servers and `exrc` files they run when the project is opened.
    "**/.claude/**",
    "**/.codex/**",
    "**/.gemini/**",
    "**/.cursor/**",
    "**/.mcp.json",
    "**/.roo/**",
    "**/.amazonq/**",
    "**/.continue/**",
    "**/opencode.json",
    "**/.aider.conf.yml",
    f"**/{PROJECT_FILE}",
    "**/.vscode/**",
    "**/*.code-workspace",
    "**/.idea/**",
    "**/.zed/**",
    "**/.helix/**",
    "**/.exrc",
    "**/.nvimrc",
    "**/.nvim.lua",
    "**/.dir-locals.el",
    "**/.dir-locals-2.el",
    "**/.devcontainer/**",
    "**/.devcontainer.json",
    # Directory environments: what direnv and mise run on `cd`, and which
    # toolchain a shim runs (`.tool-versions` may name `path:DIR`).
    "**/.envrc",
    "**/.direnv/**",
    "**/.tool-versions",
    "**/mise.toml",
    "**/mise.*.toml",
    "**/.mise.toml",
    "**/.mise.*.toml",
    "**/.mise/**",
    "**/mise/config.toml",
    "**/.config/mise.toml",
    "**/.config/mise/**",
    "**/.rtx.toml",
    "**/.rtx.*.toml",
    # Package managers: npm's `.npmrc` (`node-options`, `script-shell`,
    # `git`), yarn's `yarnPath` and plugins, run by every command of theirs.
    "**/.npmrc",
    "**/.yarnrc",
    "**/.yarnrc.yml",
    "**/.yarn/releases/**",
    "**/.yarn/plugins/**",
    "**/.pnpmfile.cjs",
    "**/rust-toolchain",
    "**/rust-toolchain.toml",
    # cargo's config (`build.rustc`, `rustc-wrapper`, `target.*.runner`),
    # read by every cargo command, `cargo metadata` that editors run on open too.
    "**/.cargo/config",
    "**/.cargo/config.toml",
    # Mercurial's repository config: `[hooks]`, extensions, at nearly every command.
    "**/.hg/hgrc",
    # Python: what `site` runs at every start of an interpreter of the
    # environment (`.pth` lines that begin with `import`, `sitecustomize`,
    # `usercustomize`, as source, bytecode, extension or package) and the
    # `pyvenv.cfg` that says which interpreter and library a venv uses. The
    # venv's `bin/` (its interpreter, entry points, activation scripts) is
    # not: those run when someone runs them, as the project's scripts do.
    "**/site-packages/*.pth",
    "**/dist-packages/*.pth",
    "**/site-packages/sitecustomize*/**",
    "**/dist-packages/sitecustomize*/**",
    "**/site-packages/usercustomize*/**",
    "**/dist-packages/usercustomize*/**",
    "**/pyvenv.cfg",
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

SHELL_VARIABLES: Final = (
    "PWD",
    "OLDPWD",
    "HOSTNAME",
    "HOSTTYPE",
    "OSTYPE",
    "MACHTYPE",
    "UID",
    "EUID",
    "PPID",
    "SHLVL",
    "BASH",
    "BASHPID",
    "BASH_VERSION",
    "BASH_VERSINFO",
    "BASH_SOURCE",
    "BASH_LINENO",
    "BASH_SUBSHELL",
    "FUNCNAME",
    "PIPESTATUS",
    "LINENO",
    "SECONDS",
    "RANDOM",
    "SRANDOM",
    "EPOCHSECONDS",
    "EPOCHREALTIME",
    "IFS",
    "OPTIND",
    "OPTARG",
    "REPLY",
    "GROUPS",
    "DIRSTACK",
)
"""
Variables bash sets itself (where it is, who runs it, its counters): their
values may be shown. With the environment a confined run keeps
(`gateway._calls._confinement.STANDARD_ENVIRONMENT`, or ``[paths] shown-variables``)
they are the variables a call may show (`shown_variable`). Any other
variable from outside may hold a secret whatever its name (``DATABASE_URL``,
``SENTRY_DSN``, ``SMTP_PASS``): reading it is reading the environment.
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


SYSTEM_READABLE: Final = (
    "/usr",
    "/bin",
    "/sbin",
    "/lib",
    "/lib32",
    "/lib64",
    "/libx32",
    "/etc",
    "/opt",
    "/snap",
    "/nix",
    "/sys/devices/system/cpu",
    "/sys/fs/cgroup",
    "/var/lib/dpkg",
    "/run/systemd/resolve",
    "/Applications",
)
"""
The system places a confined run may read: programs, libraries and their
settings, what tools size themselves by in ``/sys`` (the CPUs glibc counts,
the cgroup limits node, the JVM and Go read), and macOS's application
bundles. The rest of ``/sys`` is not there: it shows the machine (firmware
tables readable by root, where a licence key can lie; serial numbers; the
network cards a run without a network has no business seeing). Nothing
else of the system is there (no ``/home``, ``/root``, ``/srv``, ``/mnt``, ``/media``, ``/var``,
``/run``, ``/boot``, ``/Library``, ``/System``): those hold people's data,
logs that record command lines and URLs (``/var/log``), keychains
(``/Library/Keychains``), boot secrets, or the whole data volume again
(``/System/Volumes/Data/Users/…``). The credentials some of
these places hold (``/etc/shadow``, host keys, ``/etc/ssl/private``) are the
secret patterns', hidden wherever they lie.
"""

TOOL_PLACES: Final = (
    "~/.pyenv",
    "~/.rbenv",
    "~/.nodenv",
    "~/.goenv",
    "~/.plenv",
    "~/.jenv",
    "~/.nvm",
    "~/.volta",
    "~/.fnm",
    "~/.bun",
    "~/.deno",
    "~/.cargo",
    "~/.rustup",
    "~/.sdkman",
    "~/.asdf",
    "~/.ghcup",
    "~/.cabal",
    "~/.elan",
    "~/.opam",
    "~/.juliaup",
    "~/.nix-profile",
    "~/.local/share/fnm",
    "~/.local/share/mise",
    "~/.local/share/uv",
    "~/.local/share/pnpm",
    "~/.local/lib",
    "~/go",
    "~/miniconda3",
    "~/anaconda3",
    "~/miniforge3",
    "~/.cache/pip",
    "~/.cache/uv",
    "~/.npm/_cacache",
    "~/.m2/repository",
    "~/.gradle/caches",
)
"""
Where toolchains and their caches live under the home directory: a confined
run may read them (so ``python``, ``node`` or ``cargo`` installed there still
runs), never write them. A ``PATH`` entry under another of these names
(``/root/.pyenv/shims`` with another home) leads to its place the same way
(`tool_place`). The secret patterns still hide what these hold
(``~/.cargo/credentials.toml``).
"""


@lru_cache(maxsize=4096)
def pattern_regex(pattern: str) -> re.Pattern[str]:
    """
    A path pattern (module docstring) as a regex to ``fullmatch`` against a path.

    Examples:
        >>> bool(pattern_regex("**/.git/hooks/**").fullmatch("/w/.git/hooks"))
        True
        >>> bool(pattern_regex("~/.ssh/*").fullmatch("~/.ssh/a/b"))
        False
    """
    out: list[str] = []
    index = 0
    if pattern.startswith("**/"):
        out.append("(?:.*/)?")
        index = 3
    while index < len(pattern):
        if pattern.startswith("/**/", index):
            out.append("/(?:.*/)?")
            index += 4
        elif pattern.startswith("/**", index) and index + 3 == len(pattern):
            out.append("(?:/.*)?")
            index += 3
        elif pattern[index] == "*":
            out.append("[^/]*")
            index += 1
        elif pattern[index] == "?":
            out.append("[^/]")
            index += 1
        elif pattern[index] == "[":
            end = pattern.find("]", index + 2)
            if end < 0:
                out.append(re.escape("["))
                index += 1
            else:
                body = pattern[index + 1 : end].replace("\\", "\\\\")
                if body.startswith("!"):
                    body = "^" + body[1:]
                out.append(f"[{body}]")
                index = end + 1
        else:
            out.append(re.escape(pattern[index]))
            index += 1
    return re.compile("".join(out), re.DOTALL)


def tool_place(entry: str, home: str | None) -> str | None:
    """
    The tool place a directory on ``PATH`` belongs to, or ``None`` when it names none.

    The entry's prefix that ends in the name of a `TOOL_PLACES` entry
    (``/root/.pyenv/shims`` → ``/root/.pyenv``, whoever's home it is in), or,
    for an entry under ``home`` that names none, the entry itself
    (``~/.local/bin``). Never the home directory or a directory above it.

    Examples:
        >>> tool_place("/root/.pyenv/plugins/pyenv-virtualenv/shims", "/home/u")
        '/root/.pyenv'
        >>> tool_place("/home/u/.local/bin", "/home/u")
        '/home/u/.local/bin'
        >>> tool_place("/home/u", "/home/u") is None
        True
    """
    if not entry.startswith("/"):
        return None
    pieces = [piece for piece in entry.split("/") if piece]
    if any(piece in (".", "..") for piece in pieces):
        return None
    for place in TOOL_PLACES:
        names = place[2:].split("/")
        for start in range(1, len(pieces) - len(names) + 1):
            if pieces[start : start + len(names)] == names:
                return "/" + "/".join(pieces[: start + len(names)])
    path = "/" + "/".join(pieces)
    if home is None or not path.startswith(home.rstrip("/") + "/"):
        return None
    return path


DEVICES: Final = frozenset(
    {
        "/dev/null",
        "/dev/zero",
        "/dev/full",
        "/dev/random",
        "/dev/urandom",
        "/dev/tty",
        "/dev/ptmx",
        "/dev/pts",
        "/dev/console",
        "/dev/stdin",
        "/dev/stdout",
        "/dev/stderr",
        "/dev/fd",
    }
)
"""The devices a confined run has (a fresh ``/dev``): no disk, no terminal of the host's."""


def holds_home(root: str, home: str | None) -> bool:
    """
    Whether a directory holds the home directory: it is ``/``, the home directory, or one above it.

    Such a directory is no workspace, for the rules (a path there keeps its
    ``home`` and other classes) and for a boundary (none can be drawn
    around it: `gateway._review._boundary.confinement_problem`). Both paths
    absolute and normalised.

    Examples:
        >>> [holds_home(root, "/home/u") for root in ("/", "/home", "/home/u", "/home/u/app")]
        [True, True, True, False]
        >>> holds_home("/", None), holds_home("/srv/app", None)
        (True, False)
    """
    if root == "/":
        return True
    return home is not None and (home == root or home.startswith(root.rstrip("/") + "/"))


def shown_variable(name: str, shown: tuple[str, ...]) -> bool:
    """Whether a variable from outside may be shown: ``shown`` names it (a trailing ``*``: a prefix)."""
    return name in shown or any(
        entry.endswith("*") and name.startswith(entry[:-1]) for entry in shown
    )


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
        shown_variables: Variables from outside whose value may be shown,
            besides bash's own (`SHELL_VARIABLES`); unset, those a confined
            run keeps (``STANDARD_ENVIRONMENT``). A name, or a name with a
            trailing ``*`` (``LC_*``).
        extra_shown_variables: More such variables, on top of ``shown-variables``.
    """

    home: str | None = None
    project_roots: tuple[str, ...] = ()
    temp_roots: tuple[str, ...] = DEFAULT_TEMP_ROOTS
    secret_patterns: tuple[str, ...] = DEFAULT_SECRET_PATTERNS
    extra_secret_patterns: tuple[str, ...] = ()
    persistence_patterns: tuple[str, ...] = DEFAULT_PERSISTENCE_PATTERNS
    extra_persistence_patterns: tuple[str, ...] = ()
    shown_variables: tuple[str, ...] | None = None
    extra_shown_variables: tuple[str, ...] = ()

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
