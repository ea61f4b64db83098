"""
The rule file format: what a rule may say, validated when it is loaded.

A rule names a decision (``allow``, ``ask``, ``decline``), what it is about
(programs, launchers, host tools, or nothing: then every command and tool
call) and conditions over the *effects* the planner states (``reads``,
``writes``, ``executes``, ``network``, ``binds``, ``lifetime``). Rules are
TOML tables (``[[rule]]`` in a rule file, ``[[approver.rules.rule]]`` in the
gateway config), with kebab-case keys; an unknown key is an error. How the
conditions are read is in `gateway_rules._conditions`; the meaning of each
key is in docs/rules.md.
"""

from __future__ import annotations

import re
from typing import Final, Literal

import msgspec

from gateway.effects import WriteAction
from gateway.shell import LAUNCHERS
from gateway_rules._conditions import CONDITIONS, condition_problem

__all__ = [
    "DEFAULT_PROFILE",
    "PROFILES",
    "REMEMBER_WIDTHS",
    "Remembered",
    "Rule",
    "RuleDecision",
    "RuleFile",
    "RulesOptions",
    "validate_rule",
]

RuleDecision = Literal["allow", "ask", "decline"]

Remembered = Literal["prefix", "exact", "never"]
"""
Which approvals a person remembered may take an ask rule's place.

``prefix``: any (a remembered program and leading arguments, or this exact
plan); ``exact``: only a remembered approval of this exact plan (its digest,
anywhere or in its session); ``never``: none, the person is asked every time.
"""

Width = Literal["digest", "session", "prefix"]

REMEMBER_WIDTHS: Final[tuple[Width, ...]] = ("digest", "session", "prefix")
"""How widely a person may ask for an approval to be remembered: this exact plan, in this session, or a program prefix."""

PROFILES: Final = ("read-only", "workspace-write")
"""The profiles the default policy defines: ``read-only`` (the default) and ``workspace-write``."""
DEFAULT_PROFILE: Final = "read-only"

_ID: Final = re.compile(r"[a-z0-9][a-z0-9._-]*")
_SELECTORS: Final = ("tools", "programs", "paths", "launchers", "fed_by", *CONDITIONS)


class Rule(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, rename="kebab"):
    """
    One rule.

    A rule *applies* to a command (or a tool call) when every condition it
    gives holds. What that means for each decision:

    * ``decline`` and ``ask``: an effect condition holds when **some** effect
      of the command fits it (``writes = ["persistence"]``: it writes a
      persistence path).
    * ``allow``: an effect condition *permits* effects of its kind: an
      effect fits when **every** fact it rests on is in the condition (a path
      whose classes are all listed; ``writes = ["workspace"]`` does not permit
      a path that is ``workspace`` and ``persistence``). A command is allowed
      only when an allow rule about its program (or tool) applies and every
      one of its effects is permitted by that rule or by an allow rule about
      no program in particular; an ``opaque`` effect is never permitted.

    Attributes:
        id: A unique, stable name (``git.force-push``): verdicts name it.
        decision: ``allow``, ``ask`` (abstain to the next approver) or ``decline``.
        reason: Why, as a clause: "rewrites shared history".
        instead: What to do instead, as a clause: "push to a new branch".
        profiles: The profiles under which the rule counts (empty: all).
        tools: Host tool names this rule is about (tools that are not shells).
        programs: Basenames of the program that really runs (from its program
            position). A name written with a path outside the system
            directories (``./ls``) is not matched unless ``any-path``.
        paths: Exact program paths (``/usr/bin/ls``).
        any_path: Match ``programs`` however the program's path is written.
        launchers: Any launcher in the command's chain (``sudo``, ``xargs``);
            each must be a launcher of the launcher table.
        subcommands: The subcommand its option table read is one of these
            (``"push"``, or a path: ``"remote add"``).
        options: One of these options is present, in the canonical spelling
            of the program's option table (``--force``, not ``-f``: the table
            has already read clusters, abbreviations and fused values).
        without_options: None of these options is present (same spellings).
        prefix: The program's arguments start with these literal words.
        args: Some literal argument matches one of these globs.
        fed_by: An earlier stage of its pipeline runs one of these programs.
        contexts: Where the command sits: ``command``, ``substitution``,
            ``process_substitution``, ``heredoc``, ``function``.
        cwd_under: The call's working directory is inside one of these.
        reads: Files it reads (path classes, globs of resolved paths,
            ``environment`` for the whole environment).
        writes: Files it changes (path classes, globs, ``workspace-root``).
        write_actions: With ``writes``: only these actions (``delete``, ``write``…).
        recursive: With ``writes``: only changes that reach everything below the path.
        executes: Code it runs beyond its program (kinds, origins).
        network: Network use (kinds, address classes, host globs).
        binds: Variables, shell options, traps, aliases and functions it sets
            (how, and name globs).
        lifetime: Background, detached, unbounded or looping work.
        remembered: For an ask rule: which approvals a person remembered
            may take its place (`Remembered`; ``prefix`` by default). A
            managed tier's own ask rules default to ``never``.
        match: Commands (or tool names) the rule must decide as it says,
            checked with the whole policy when the rules load.
        not_match: Commands (or tool names) the rule must not decide.
    """

    id: str
    decision: RuleDecision
    reason: str
    instead: str | None = None
    profiles: tuple[str, ...] = ()
    tools: tuple[str, ...] = ()
    programs: tuple[str, ...] = ()
    paths: tuple[str, ...] = ()
    any_path: bool = False
    launchers: tuple[str, ...] = ()
    subcommands: tuple[str, ...] = ()
    options: tuple[str, ...] = ()
    without_options: tuple[str, ...] = ()
    prefix: tuple[str, ...] = ()
    args: tuple[str, ...] = ()
    fed_by: tuple[str, ...] = ()
    contexts: tuple[str, ...] = ()
    cwd_under: tuple[str, ...] = ()
    reads: tuple[str, ...] = ()
    writes: tuple[str, ...] = ()
    write_actions: tuple[WriteAction, ...] = ()
    recursive: bool | None = None
    executes: tuple[str, ...] = ()
    network: tuple[str, ...] = ()
    binds: tuple[str, ...] = ()
    lifetime: tuple[str, ...] = ()
    remembered: Remembered | None = None
    match: tuple[str, ...] = ()
    not_match: tuple[str, ...] = ()

    @property
    def yields_to(self) -> Remembered:
        """Which remembered approvals may take this rule's place (an ask rule's ``remembered``, ``prefix`` unless said)."""
        return self.remembered or "prefix"

    @property
    def about_commands(self) -> bool:
        """True when the rule names what runs (programs, paths or launchers)."""
        return bool(self.programs or self.paths or self.launchers)

    @property
    def conditions(self) -> dict[str, tuple[str, ...]]:
        """The effect conditions it gives, by key (``reads``, ``writes``…)."""
        return {name: getattr(self, name) for name in CONDITIONS if getattr(self, name)}


class RuleFile(
    msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, rename="kebab"
):
    """A rule file: ``[[rule]]`` tables."""

    rule: tuple[Rule, ...] = ()


class RulesOptions(
    msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, rename="kebab"
):
    """
    The rules approver's options (``[approver.rules]``).

    Attributes:
        profile: Which rules count: those without ``profiles`` and those that
            name this one (``read-only``, the default, or ``workspace-write``).
        include_default: Also load the default policy shipped with the gateway
            (a rule here with the same id replaces the default one).
        files: More rule files to load.
        memory: Where approvals a person asked to remember are kept (a JSON
            file, readable by its owner only); a relative path is in the
            state directory (``~/.local/state/agent-gateway``), never where
            an agent works (default: ``remembered.json`` there); empty
            keeps them in this process only.
        remember: How widely a person may ask for an approval to be
            remembered (`REMEMBER_WIDTHS`); a width left out is neither
            offered nor applied. Tiers keep only the widths every one of
            them allows.
        rule: Rules written inline.
    """

    profile: str = DEFAULT_PROFILE
    include_default: bool = True
    files: tuple[str, ...] = ()
    memory: str = "remembered.json"
    remember: tuple[Width, ...] = REMEMBER_WIDTHS
    rule: tuple[Rule, ...] = ()


def validate_rule(rule: Rule) -> str | None:
    """The problem with a rule, as a clause, or ``None`` when it is valid."""
    if not _ID.fullmatch(rule.id):
        return f"its id {rule.id!r} is not lowercase letters, digits, dots, dashes and underscores"
    if not rule.reason.strip():
        return "it has no reason"
    for profile in rule.profiles:
        if not _ID.fullmatch(profile):
            return f"its profile {profile!r} is not lowercase letters, digits, dots and dashes"
    if not any(getattr(rule, name) for name in _SELECTORS):
        return "it selects nothing (give programs, paths, launchers, tools, fed-by or an effect condition)"
    if rule.tools and rule.about_commands:
        return "it mixes tools (not shells) with programs"
    for launcher in rule.launchers:
        if launcher not in LAUNCHERS:
            return f"its launcher {launcher!r} is not in the launcher table (name it in `programs` instead)"
    if (
        rule.subcommands or rule.options or rule.without_options or rule.prefix or rule.args
    ) and not (rule.programs or rule.paths):
        return "it gives subcommands, options, a prefix or args without programs"
    for option in (*rule.options, *rule.without_options):
        if not option.startswith("-") or option in ("-", "--"):
            return f"its option {option!r} does not start with a dash"
    for name, tokens in rule.conditions.items():
        problem = condition_problem(name, tokens, decision=rule.decision)
        if problem is not None:
            return problem
    if (rule.write_actions or rule.recursive is not None) and not rule.writes:
        return "it gives write-actions or recursive without writes"
    if rule.remembered is not None and rule.decision != "ask":
        return "it gives remembered, which only an ask rule has (a person's memory never outranks a decline)"
    return None
