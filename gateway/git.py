"""
Git trust: what code a repository's own configuration and hooks would make git run.

A namespace of the public API (like ``trio.lowlevel``): `inspect_repository`
reads, at review time and without running git, what the repository git would
use sets (a `RepositoryInspection` of `ConfiguredCode`); `repository_refusal`
and `configured_refusal` compare that with what a git command may run;
`persistence_points` says where the repositories a call touches keep their
hooks and configuration. `GIT_CODE_KEYS` lists the configuration keys that
name code (`git_code_key` matches one). The trust model and its measured cost
are in docs/git-trust.md.

Examples:
    >>> from gateway.git import git_code_key
    >>> git_code_key("core.fsmonitor"), git_code_key("user.name")
    ('core.fsmonitor', None)
"""

from gateway._programs._git_trust import (
    ConfiguredCode as ConfiguredCode,
    PersistencePoints as PersistencePoints,
    RepositoryInspection as RepositoryInspection,
    configured_refusal as configured_refusal,
    inspect_repository as inspect_repository,
    persistence_points as persistence_points,
    repository_refusal as repository_refusal,
)
from gateway._programs._gitconfig import (
    GIT_CODE_KEYS as GIT_CODE_KEYS,
    git_code_key as git_code_key,
)

__all__ = [
    "GIT_CODE_KEYS",
    "ConfiguredCode",
    "PersistencePoints",
    "RepositoryInspection",
    "configured_refusal",
    "git_code_key",
    "inspect_repository",
    "persistence_points",
    "repository_refusal",
]
