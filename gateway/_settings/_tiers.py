"""
Configuration tiers: managed, user and project configs, combined so that the strictest wins.

Three tiers, from most to least authority:

* **managed** — what an organisation sets for a machine or a fleet: the file
  `MANAGED_FILE` (only root may write it and every directory above it; one
  that others could change is refused), and, with a fleet, the version
  published in the broker's policy bucket (``gateway policy publish``);
* **user** — ``--config FILE``, else ``$XDG_CONFIG_HOME/agent-gateway/config.toml``
  when it exists, else the embedded default;
* **project** — the nearest ``.agent-gateway.toml`` from the working
  directory up.

They combine key by key (`merge_tiers`):

* keys with an order of strictness take the strictest value any tier gives
  (`STRICTEST`): ``enforce`` over ``shadow``, the shorter timeout, the
  smaller limit, ``true`` for a protection, the origins every tier allows;
* rules are pooled: every tier's ``[[approver.rules.rule]]`` (and the rules
  of the files it names, and the default policy when it includes it) count,
  and a rule id two tiers define keeps the stricter decision (decline over
  ask over allow), so no tier can loosen a rule another one set. An ask
  rule the managed tier itself sets (not the default policy it includes)
  asks every time, whatever a person remembered, unless it says otherwise
  (``remembered``); ``[approver.rules] remember`` keeps only the widths
  every tier allows;
* shell tools are pooled (more tools read as shells is stricter); sinks and
  notifiers are pooled by name;
* every other key comes from the tier with the most authority that sets it;
  the keys that choose how the audit log is signed (``[audit] signing-key``,
  ``create-key``, ``hmac-key``) come together, from one tier.

A project's file may be written by the agent the gateway guards, so unless
a managed or user tier sets ``[tiers] trust-project = true`` the project
tier may only make things stricter: its strict keys count only where they
are stricter than the defaults, its ``allow`` rules are dropped, and every
other key it sets (a hook server, a sink, a notifier, the approvers…) is
ignored. `EffectiveConfig.provenance` says what was dropped and why.

`effective_config` returns the result with, for every key, where it came
from (``gateway config show`` prints both). No tier is ever read from the
environment, so nothing a process inherits can drop the managed tier.
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Final, Literal

import msgspec

from gateway._calls._errors import ConfigError
from gateway._calls._places import PROJECT_FILE
from gateway._calls._verdicts import DECISION_ORDER
from gateway._settings._config import (
    DEFAULT_SHELL_TOOLS,
    GatewayConfig,
    config_from_table,
    default_config_bytes,
    load_config,
)

__all__ = [
    "MANAGED_FILE",
    "PROJECT_FILE",
    "STRICTEST",
    "EffectiveConfig",
    "Tier",
    "effective_config",
    "find_tiers",
    "managed_file_problem",
    "merge_tiers",
    "read_tier",
    "tier_of",
]

MANAGED_FILE: Final = Path("/etc/agent-gateway/managed.toml")
"""The machine's managed config: honoured only when root alone can write it."""

TierName = Literal["managed", "user", "project"]
_AUTHORITY: Final[dict[str, int]] = {"managed": 0, "user": 1, "project": 2}
_DECISION_RANK: Final[dict[str, int]] = {
    decision: rank for rank, decision in enumerate(DECISION_ORDER)
}
_RULES: Final = ("approver", "rules")


class Tier(msgspec.Struct, frozen=True, kw_only=True):
    """
    One tier's config, as read.

    Attributes:
        tier: ``managed``, ``user`` or ``project``.
        source: Where it came from (a path, the broker's bucket and version,
            or "the embedded default").
        sha256: The digest of its bytes.
        data: Its TOML, decoded (kebab-case keys, as written).
        base: The directory its relative rule-file paths are read from.
    """

    tier: TierName
    source: str
    sha256: str
    data: dict[str, Any]
    base: str | None = None

    @property
    def label(self) -> str:
        """``tier (source)``, as provenance shows it."""
        return f"{self.tier} ({self.source})"


def _strict_min(values: Sequence[Any]) -> Any:
    return min(values)


def _strict_any(values: Sequence[Any]) -> Any:
    return any(bool(value) for value in values)


def _strict_mode(values: Sequence[Any]) -> Any:
    return "enforce" if "enforce" in values or not values else values[0]


def _strict_allow(values: Sequence[Any]) -> Any:
    # Leaving every allow to the host is stricter than answering founded ones.
    return "host" if "host" in values else "founded"


def _strict_intersection(values: Sequence[Any]) -> Any:
    kept = [item for item in values[0] if all(item in other for other in values[1:])]
    return kept


STRICTEST: Final[Mapping[str, Callable[[Sequence[Any]], Any]]] = {
    "gateway.mode": _strict_mode,
    "gateway.approver-timeout": _strict_min,
    "gateway.audit-timeout": _strict_min,
    "gateway.ask-holes": _strict_any,
    "serve.human-timeout": _strict_min,
    "serve.protect-reads": _strict_any,
    "serve.max-pending": _strict_min,
    "serve.max-body": _strict_min,
    "serve.max-watchers": _strict_min,
    "serve.allowed-origins": _strict_intersection,
    "approver.human.timeout": _strict_min,
    "hosts.allow": _strict_allow,
    "hook.require-service": _strict_any,
}
"""The keys where a tier cannot loosen another: how the strictest of several values is found."""

_POOLED_TABLES: Final = ("sinks", "notifiers")

_TOGETHER: Final = (("audit.signing-key", "audit.create-key", "audit.hmac-key"),)
"""
Keys that mean something only together: all of a group come from the tier
with the most authority that sets any of them (a managed tier's HMAC secret
is not combined with the signing key, or the key making, of the embedded default).
"""


def _flatten(data: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    flat: dict[str, Any] = {}
    for key, value in data.items():
        path = f"{prefix}{key}"
        if path in ("approver.rules", "shell-tools", *_POOLED_TABLES):
            continue  # Pooled, not taken key by key.
        if isinstance(value, dict) and value:
            flat.update(_flatten(value, f"{path}."))
        else:
            flat[path] = value
    return flat


def _put(target: dict[str, Any], path: str, value: Any) -> None:
    *parents, last = path.split(".")
    for part in parents:
        target = target.setdefault(part, {})
    target[last] = value


def _default_rules() -> list[dict[str, Any]]:
    raw = msgspec.toml.decode(default_config_bytes())
    rules = raw.get("approver", {}).get("rules", {}).get("rule", [])
    return [rule for rule in rules if isinstance(rule, dict)]


def _tier_rules(tier: Tier) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """
    A tier's rules (the default policy if it asks, then inline and from its files) and its other rules options.

    A managed tier's own ask rules (not the default policy's) default to
    ``remembered = "never"``: what the organisation asks about, it asks about
    every time.
    """
    options = dict(tier.data.get("approver", {}).get("rules", {}) or {})
    included: list[dict[str, Any]] = []
    # As in a rules approver's own options: the default policy counts unless
    # the tier says `include-default = false`.
    if options.pop("include-default", True):
        included.extend(_default_rules())
    found: list[dict[str, Any]] = []
    for name in options.pop("files", []) or []:
        path = Path(str(name)).expanduser()
        if not path.is_absolute() and tier.base is not None:
            path = Path(tier.base) / path
        try:
            raw = msgspec.toml.decode(path.read_bytes())
        except OSError as error:
            raise ConfigError(
                f"Cannot read the rule file {str(path)!r} named by the {tier.label} config: {error.strerror}.",
                source=tier.source,
            ) from None
        except msgspec.DecodeError as error:
            raise ConfigError(
                f"The rule file {str(path)!r} named by the {tier.label} config is not valid TOML: {error}.",
                source=tier.source,
            ) from None
        found.extend(rule for rule in raw.get("rule", []) if isinstance(rule, dict))
    inline = options.pop("rule", []) or []
    found.extend(rule for rule in inline if isinstance(rule, dict))
    if tier.tier == "managed":
        found = [
            {**rule, "remembered": "never"}
            if rule.get("decision") == "ask" and "remembered" not in rule
            else rule
            for rule in found
        ]
    return [*included, *found], options


def _rank(rule: Mapping[str, Any]) -> int:
    return _DECISION_RANK.get(str(rule.get("decision")), _DECISION_RANK["decline"])


def merge_tiers(tiers: Sequence[Tier]) -> tuple[dict[str, Any], dict[str, str]]:
    """
    Combine tiers into one config table (as TOML decodes it) and say where each key came from.

    Returns:
        The combined table, and for each key path (``gateway.mode``,
        ``approver.rules.rule[git.force-push]``, ``sinks.audit``…) the tier
        (or tiers, for a strictest value) it came from.
    """
    ordered = sorted(tiers, key=lambda tier: _AUTHORITY[tier.tier])
    merged: dict[str, Any] = {}
    provenance: dict[str, str] = {}
    trusted = any(
        bool(tier.data.get("tiers", {}).get("trust-project", False))
        for tier in ordered
        if tier.tier != "project"
    )

    def heard(tier: Tier, path: str) -> bool:
        """Whether a tier's value for a key counts (an untrusted project: strict keys only)."""
        if tier.tier != "project" or trusted:
            return tier.tier != "project" or not path.startswith("tiers.")
        provenance.setdefault(path, f"ignored: set by {tier.label}, which may only tighten")
        return False

    # Key by key: the strictest value, or the most authoritative one.
    values: dict[str, list[tuple[Tier, Any]]] = {}
    for tier in ordered:
        for path, value in _flatten(tier.data).items():
            if path in STRICTEST or heard(tier, path):
                values.setdefault(path, []).append((tier, value))
    for group in _TOGETHER:
        chooser = next(
            (
                tier
                for tier in ordered
                if any(tier is t for path in group for t, _ in values.get(path, []))
            ),
            None,
        )
        for path in group:
            if chooser is None or path not in values:
                continue
            for tier, _ in values[path]:
                if tier is not chooser:
                    provenance.setdefault(
                        path, f"ignored: set by {tier.label}; {chooser.label} chooses the key"
                    )
            values[path] = [(tier, value) for tier, value in values[path] if tier is chooser]
            if not values[path]:
                del values[path]
    defaults = _flatten(msgspec.to_builtins(GatewayConfig()))
    for path, given in values.items():
        strictest = STRICTEST.get(path)
        candidates = [value for _, value in given]
        untrusted = not trusted and any(tier.tier == "project" for tier, _ in given)
        if strictest is not None and untrusted and defaults.get(path) is not None:
            # A project may tighten the default, never loosen it.
            candidates.append(defaults[path])
        if strictest is not None and len(candidates) > 1:
            try:
                value = strictest(candidates)
            except TypeError:
                value = given[0][1]
            _put(merged, path, value)
            provenance[path] = "strictest of " + ", ".join(tier.label for tier, _ in given)
            if untrusted and value == defaults.get(path) and value != given[0][1]:
                provenance[path] += " and the default"
        else:
            _put(merged, path, given[0][1])
            provenance[path] = given[0][0].label
    # Pooled tables: by name, the most authoritative definition.
    for table in _POOLED_TABLES:
        for tier in ordered:
            if not heard(tier, table):
                continue
            for name, value in (tier.data.get(table) or {}).items():
                if name not in merged.get(table, {}):
                    merged.setdefault(table, {})[name] = value
                    provenance[f"{table}.{name}"] = tier.label
    # Shell tools: pooled by tool name (with the default list unless a tier
    # that may replace it does: a project's one tool must not drop `Bash`).
    tools: dict[str, Any] = {}
    if not any(tier.data.get("shell-tools") for tier in ordered if tier.tier != "project"):
        for entry in msgspec.to_builtins(DEFAULT_SHELL_TOOLS):
            tools[str(entry["tool"])] = entry
    for tier in ordered:
        for entry in tier.data.get("shell-tools") or []:
            if isinstance(entry, dict) and entry.get("tool") not in tools:
                tools[str(entry.get("tool"))] = entry
                provenance[f"shell-tools[{entry.get('tool')}]"] = tier.label
    if tools:
        merged["shell-tools"] = list(tools.values())
    _merge_rules(ordered, merged, provenance, trusted=trusted)
    return merged, provenance


def _merge_rules(
    ordered: Sequence[Tier], merged: dict[str, Any], provenance: dict[str, str], *, trusted: bool
) -> None:
    chosen: dict[str, tuple[Tier, dict[str, Any]]] = {}
    others: dict[str, Any] = {}
    any_rules = False
    for tier in ordered:
        if "rules" not in tier.data.get("approver", {}):
            continue
        any_rules = True
        rules, options = _tier_rules(tier)
        for key, value in options.items():
            if key == "remember":
                # The widths a person may remember: only those every tier allows.
                kept = others.get(key)
                others[key] = (
                    value
                    if kept is None or not isinstance(value, list)
                    else [width for width in kept if width in value]
                )
                provenance[f"approver.rules.{key}"] = (
                    tier.label
                    if kept is None
                    else f"{provenance[f'approver.rules.{key}']}, {tier.label}"
                )
                continue
            if tier.tier == "project" and not trusted:
                provenance.setdefault(
                    f"approver.rules.{key}", f"ignored: set by {tier.label}, which may only tighten"
                )
                continue
            if key not in others:
                others[key] = value
                provenance[f"approver.rules.{key}"] = tier.label
        for rule in rules:
            rule_id = str(rule.get("id", ""))
            if tier.tier == "project" and not trusted and rule.get("decision") == "allow":
                provenance[f"approver.rules.rule[{rule_id}]"] = (
                    f"dropped: an allow from {tier.label} ([tiers] trust-project is off)"
                )
                continue
            earlier = chosen.get(rule_id)
            if earlier is None or (earlier[0] is tier or _rank(rule) > _rank(earlier[1])):
                chosen[rule_id] = (tier, rule)
                provenance[f"approver.rules.rule[{rule_id}]"] = tier.label
    if not any_rules:
        return
    approver = merged.setdefault("approver", {})
    approver["rules"] = {
        **others,
        "include-default": False,
        "rule": [rule for _, rule in chosen.values()],
    }


class EffectiveConfig(msgspec.Struct, frozen=True, kw_only=True):
    """
    The config the tiers add up to, and where each part came from.

    Attributes:
        config: The validated config.
        tiers: The tiers, most authoritative first.
        provenance: For every key path, the tier (or tiers) it came from.
        table: The combined TOML table the config was decoded from.
    """

    config: GatewayConfig
    tiers: tuple[Tier, ...]
    provenance: dict[str, str]
    table: dict[str, Any]


def effective_config(tiers: Sequence[Tier]) -> EffectiveConfig:
    """
    Combine the tiers and validate the result.

    Raises:
        ConfigError: The combination is not a valid config (the message
            names the key; `EffectiveConfig.provenance` says whose it is).
    """
    table, provenance = merge_tiers(tiers)
    names = ", ".join(tier.label for tier in tiers) or "no tier"
    config = config_from_table(table, name=f"the combined config of {names}")
    ordered = tuple(sorted(tiers, key=lambda tier: _AUTHORITY[tier.tier]))
    return EffectiveConfig(config=config, tiers=ordered, provenance=provenance, table=table)


def managed_file_problem(path: Path) -> str | None:
    """
    Why a managed config file cannot be trusted, or ``None`` when only root can change it.

    The file and every directory above it must belong to root and be
    writable by nobody else (a directory with the sticky bit, like ``/tmp``,
    may be writable by others: they cannot replace what root owns in it).
    """
    try:
        resolved = path.resolve(strict=True)
    except OSError as error:
        return f"it cannot be resolved ({error.strerror})"
    for index, part in enumerate((resolved, *resolved.parents)):
        try:
            status = part.lstat()
        except OSError as error:
            return f"{part} cannot be read ({error.strerror})"
        if status.st_uid != 0:
            return f"{part} belongs to uid {status.st_uid}, not root"
        writable = status.st_mode & (stat.S_IWGRP | stat.S_IWOTH)
        sticky = stat.S_ISDIR(status.st_mode) and status.st_mode & stat.S_ISVTX
        if writable and (index == 0 or not sticky):
            return f"{part} is writable by others than root"
    return None


def read_tier(tier: TierName, path: Path, *, source: str | None = None) -> Tier:
    """
    Read one tier's file.

    Raises:
        ConfigError: It cannot be read, is not TOML, or (a managed file)
            could be changed by someone other than root.
    """
    label = source or str(path)
    if tier == "managed":
        problem = managed_file_problem(path)
        if problem is not None:
            raise ConfigError(
                f"The managed config {label!r} is refused: {problem}; only root may be able to change it.",
                source=label,
            )
    try:
        data = path.read_bytes()
    except OSError as error:
        raise ConfigError(
            f"Cannot read the {tier} config {label!r}: {error.strerror}.", source=label
        ) from None
    return tier_of(tier, data, source=label, base=str(path.parent))


def tier_of(tier: TierName, data: bytes, *, source: str, base: str | None = None) -> Tier:
    """
    A tier from TOML bytes (a file's, or a version from the broker).

    Raises:
        ConfigError: The bytes are not TOML, or not a valid config on their own.
    """
    try:
        table = msgspec.toml.decode(data)
    except msgspec.DecodeError as error:
        raise ConfigError(
            f"The {tier} config {source!r} is not valid TOML: {error}.", source=source
        ) from None
    # Each tier must be a valid config by itself: an unknown key is named
    # with the tier it is in, not only in the combination.
    load_config(data, name=source)
    return Tier(
        tier=tier,
        source=source,
        sha256="sha256:" + hashlib.sha256(data).hexdigest(),
        data=table,
        base=base,
    )


def _user_file(environ: Mapping[str, str]) -> Path:
    config = environ.get("XDG_CONFIG_HOME") or str(Path("~/.config").expanduser())
    return Path(config) / "agent-gateway" / "config.toml"


def _project_file(cwd: Path) -> Path | None:
    for directory in (cwd, *cwd.parents):
        candidate = directory / PROJECT_FILE
        if candidate.is_file():
            return candidate
    return None


def find_tiers(
    *,
    config_path: str | Path | None = None,
    cwd: str | Path | None = None,
    managed: Sequence[Tier] = (),
    managed_file: Path = MANAGED_FILE,
    environ: Mapping[str, str] | None = None,
) -> list[Tier]:
    """
    The tiers that apply here, most authoritative first.

    Args:
        config_path: The user tier's file (``--config``); default: the
            user's config file when it exists, else the embedded default.
        cwd: Where to look for a project's ``.agent-gateway.toml`` (upwards);
            ``None``: no project tier.
        managed: Managed tiers from elsewhere (the broker's policy bucket).
        managed_file: The machine's managed file (`MANAGED_FILE`).
        environ: Where ``XDG_CONFIG_HOME`` is read (default: the process's).

    Raises:
        ConfigError: A tier cannot be read, is not a valid config, or a
            managed file could be changed by someone other than root.
    """
    environ = os.environ if environ is None else environ
    found: list[Tier] = []
    if managed_file.exists():
        found.append(read_tier("managed", managed_file))
    found.extend(managed)
    if config_path is not None:
        found.append(read_tier("user", Path(config_path)))
    else:
        user = _user_file(environ)
        if user.is_file():
            found.append(read_tier("user", user))
        else:
            found.append(tier_of("user", default_config_bytes(), source="the embedded default"))
    if cwd is not None:
        project = _project_file(Path(cwd).resolve())
        if project is not None:
            found.append(read_tier("project", project))
    return found
