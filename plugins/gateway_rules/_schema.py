"""
The rule file format: what a rule may say, validated when it is loaded.

A rule names a decision (``allow``, ``ask``, ``decline``) and the conditions a
command must meet for it to apply; every condition given must hold. Rules are
TOML tables (``[[rule]]`` in a rule file, ``[[approver.rules.rule]]`` in the
gateway config), with kebab-case keys; an unknown key is an error.
"""

from __future__ import annotations

import re
from typing import Final, Literal

import msgspec

__all__ = ["Rule", "RuleFile", "RulesOptions", "validate_rule"]

RuleDecision = Literal["allow", "ask", "decline"]

_ID: Final = re.compile(r"[a-z0-9][a-z0-9._-]*")
_SELECTORS: Final = (
    "tools",
    "programs",
    "paths",
    "launchers",
    "assigns",
    "write_targets",
    "redirect_targets",
    "fed_by",
    "expansions",
)


class Rule(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, rename="kebab"):
    """
    One rule.

    Attributes:
        id: A unique, stable name (``git.force-push``): verdicts name it.
        decision: ``allow``, ``ask`` (abstain to the next approver) or ``decline``.
        reason: Why, as a clause: "rewrites shared history".
        instead: What to do instead, as a clause: "push to a new branch".
        tools: Host tool names this rule is about (tools that are not shells).
        programs: Basenames of the program that really runs (from its program
            position). A name written with a path outside the system
            directories (``./ls``) is not matched unless ``any-path``.
        paths: Exact program paths (``/usr/bin/ls``).
        any_path: Match ``programs`` however the program's path is written.
        launchers: Any launcher in the command's chain (``sudo``, ``xargs``).
        subcommands: The first operand after the program (and its
            ``global-options``) is one of these (``git push``).
        global_options: The program's options that may come before the
            subcommand, with their arity (``{ "-C" = 1 }`` for git).
        prefix: The arguments after the program start with these words.
        options: Any of these options is present. Spellings recognised: short
            letters anywhere in a cluster (``-rf`` has ``-f``) or fused with a
            value, ``--long`` and ``--long=value`` and their abbreviations;
            single-dash long options (``-exec``) exactly; ``*`` globs (``-fprint*``).
        without_options: None of these options is present (same spellings).
        before_subcommand: Look for ``options`` only before the first operand
            (``git -c x=y log`` has ``-c``; ``git switch -c topic`` does not).
        arg_patterns: Any argument matches one of these regular expressions
            (its value after quote removal; for an argument that expands, its
            text as written, so ``~`` and ``$HOME`` can be matched).
        dynamic_args: True: some argument expands; false: none does.
        max_args: At most this many arguments after the program.
        max_operands: At most this many arguments that are not options.
        expansions: Some word of the command uses one of these kinds of
            expansion (``transform`` for ``${x@P}``, ``indirect`` for
            ``${!x}``, ``command_substitution``, ``arithmetic``…).
        assigns: The command sets one of these variables (``*`` globs: ``LD_*``):
            for the program (``PATH=… cmd``, ``env PATH=… cmd``) or in the
            shell (``PATH=…``, ``export``, ``declare``, ``read``, ``printf -v``…).
        writes: True: it writes a file through a redirect (not ``/dev/null``,
            not a descriptor duplication); false: it does not.
        write_targets: A redirect it writes to matches one of these globs
            (as written: ``~/.*``, ``*/.bashrc``).
        redirect_targets: Any redirect target (read or write) matches one of these globs.
        fed_by: An earlier stage of its pipeline runs one of these programs.
        runs_shell: True: a shell runs text here (``sh -c``, ``sudo -s``).
        sed_runs: True: the command's sed scripts (the ``-e`` values, else the
            first operand) can run commands or write files (``e``, ``w``,
            ``W``, ``s///e``, ``s///w`` behind any address), edit in place,
            come from a file, or cannot be read; false: none of these. Give it
            with ``programs = ["sed"]``.
        contexts: Where the command sits: ``command``, ``substitution``,
            ``process_substitution``, ``heredoc``, ``function``.
        cwd_under: The call's working directory is inside one of these.
        match: Commands the rule must match (checked when the rule loads).
        not_match: Commands the rule must not match (checked when it loads).
    """

    id: str
    decision: RuleDecision
    reason: str
    instead: str | None = None
    tools: tuple[str, ...] = ()
    programs: tuple[str, ...] = ()
    paths: tuple[str, ...] = ()
    any_path: bool = False
    launchers: tuple[str, ...] = ()
    subcommands: tuple[str, ...] = ()
    global_options: dict[str, int] = msgspec.field(default_factory=dict)
    prefix: tuple[str, ...] = ()
    options: tuple[str, ...] = ()
    without_options: tuple[str, ...] = ()
    before_subcommand: bool = False
    arg_patterns: tuple[str, ...] = ()
    dynamic_args: bool | None = None
    max_args: int | None = None
    max_operands: int | None = None
    expansions: tuple[str, ...] = ()
    assigns: tuple[str, ...] = ()
    writes: bool | None = None
    write_targets: tuple[str, ...] = ()
    redirect_targets: tuple[str, ...] = ()
    fed_by: tuple[str, ...] = ()
    runs_shell: bool | None = None
    sed_runs: bool | None = None
    contexts: tuple[str, ...] = ()
    cwd_under: tuple[str, ...] = ()
    match: tuple[str, ...] = ()
    not_match: tuple[str, ...] = ()


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
        include_default: Also load the default policy shipped with the gateway
            (a rule here with the same id replaces the default one).
        files: More rule files to load.
        memory: Where approvals a person asked to remember are kept (a JSON
            file, readable by its owner only); empty keeps them in memory only.
        rule: Rules written inline.
    """

    include_default: bool = True
    files: tuple[str, ...] = ()
    memory: str = ""
    rule: tuple[Rule, ...] = ()


def validate_rule(rule: Rule) -> str | None:
    """The problem with a rule, as a clause, or ``None`` when it is valid."""
    if not _ID.fullmatch(rule.id):
        return f"its id {rule.id!r} is not lowercase letters, digits, dots, dashes and underscores"
    if not rule.reason.strip():
        return "it has no reason"
    if (
        not any(getattr(rule, name) for name in _SELECTORS)
        and rule.runs_shell is None
        and rule.writes is None
    ):
        return "it selects nothing (give programs, paths, tools, launchers, assigns, redirect or write targets, fed-by, runs-shell or writes)"
    if rule.tools and (rule.programs or rule.paths or rule.launchers):
        return "it mixes tools (not shells) with programs"
    for pattern in rule.arg_patterns:
        try:
            re.compile(pattern)
        except re.error as error:
            return f"its arg pattern {pattern!r} is not a valid regular expression ({error})"
    for option in (*rule.options, *rule.without_options):
        if not option.startswith("-") or option in ("-", "--"):
            return f"its option {option!r} does not start with a dash"
    for arity in rule.global_options.values():
        if arity not in (0, 1):
            return "its global-options arities must be 0 or 1"
    if (rule.subcommands or rule.prefix) and not (rule.programs or rule.paths):
        return "it gives subcommands or a prefix without programs"
    if rule.sed_runs is not None and not (rule.programs or rule.paths):
        return "it gives sed-runs without programs"
    return None
