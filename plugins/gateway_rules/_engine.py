"""
The rules engine: judge every command of a call by its effects, and let the strictest decision win.

For each command — statement commands, substitutions, heredoc ``$( )``,
function bodies, nested shell text, ``find -exec`` and ``xargs`` targets —
the decision is, in order of precedence:

1. ``decline``: a decline rule applies (some effect fits it), or a built-in
   decline: the program comes from an expansion; shell text built at run
   time or piped in from another program; a function that starts copies of
   itself (the fork bomb);
2. ``ask``: an ask rule applies, or a built-in ask: it calls a function the
   call defines, an option or control word at the program position, operands
   fed from a stream;
3. ``allow``, only when **every fact it rests on is known and allowed**: an
   allow rule about its program (or a remembered approval) applies; every
   launcher in front of it is transparent or named by that rule; every
   nested shell text and ``-exec`` target was read (and is judged itself);
   no effect is ``opaque``; and every effect is permitted by that rule or by
   an allow rule about no program in particular (``reads = [...]`` for any
   program). A git command also needs the repository check
   (`gateway.git.repository_refusal`) to find nothing;
4. otherwise ``ask``, naming the first thing that stood in the way ("no rule
   covers `frob`", "it reads `~/.ssh/id_rsa` (home, secret), …").

The statement's own effects (a bare assignment, ``(( ))``, a ``for`` loop)
and the tool row's (``local_shell``'s ``env`` and ``user``) are judged the
same way, by the rules about no program. A call of a tool that is not a
shell is judged by its effects too, with the rules that name the tool. The
call is allowed only when every command is; any decline declines it;
anything else asks. An unmeasured plan is never allowed, and text that can
hide what runs from a person (control characters, invisible Unicode) is at
least an ask.

Judging is pure and linear: no I/O (the repository inspections are made
beforehand and handed in), globs are automata.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from types import MappingProxyType
from typing import Final, Literal, NamedTuple

from msgspec.structs import replace

from gateway import DECISION_VERBS, Abstain, Allow, Answer, Decline, ReviewRequest, strictness
from gateway.effects import (
    Bind,
    ChangeDirectory,
    Effect,
    EffectPath,
    Execute,
    Lifetime,
    Network,
    Opaque,
    Read,
    ReadEnvironment,
    Write,
    effect_clauses,
    iter_effects,
    say_clauses,
)
from gateway.plans import Plan, PlannedCommand
from gateway_rules._conditions import Condition, compile_condition, describe
from gateway_rules._context import through_links, walked_paths
from gateway_rules._match import CommandView, Selectors, command_text
from gateway_rules._schema import DEFAULT_PROFILE, Rule, RuleDecision

__all__ = [
    "GIT_ROLE_READS",
    "PROTECTED_CLASSES",
    "REMEMBERED_PREFIX",
    "Hindrance",
    "JudgeContext",
    "Judgement",
    "RuleSet",
    "protected",
]

GIT_ROLE_READS: Final = frozenset({"git repository", "git work tree"})
"""Reads of a repository's git directory and work tree, whose place only the repository check knows."""
_FIND_EXEC: Final = frozenset({"-exec", "-execdir", "-ok", "-okdir"})
_FOUND: Final = "{}"


Hindrance = Literal["uncovered", "opaque", "undeclared", "code", "launcher"]
"""
For an ask no rule gave, what stood in the way of an allow.

``uncovered``: no allow rule is about the command's program. ``opaque``:
the plan cannot state all the command does. ``undeclared``: the program is
given an option (or word) its option table does not declare. ``code``: it
runs code the rules cannot read (a makefile's recipes, a script). ``launcher``:
it runs through a launcher no allow rule names.
"""


class Judgement(NamedTuple):
    """
    One decision with its reason and the rules behind it.

    Attributes:
        decision: ``allow``, ``ask`` or ``decline``.
        reason: One sentence.
        rule: The rule that decided (for an allow: the rule about the
            program), or ``None`` when no rule did.
        command: The command judged, as shown in the sentence.
        rules: Every rule the decision rests on (for an allow, also the rules
            that permitted its effects).
        hindrance: For an ask no rule gave, what stood in the way of an
            allow (`Hindrance`); ``None`` otherwise, and for a built-in check.
        program: The program the command runs (after its launchers), when
            the judgement is about one.
        confined: For an allow: it holds only inside the profile's boundary
            (the command runs code the rules cannot read; `RuleSet.confine_code`).
    """

    decision: RuleDecision
    reason: str
    rule: str | None
    command: str | None = None
    rules: tuple[str, ...] = ()
    hindrance: Hindrance | None = None
    program: str | None = None
    confined: bool = False


class JudgeContext(NamedTuple):
    """
    What judging needs besides the plans and the rules.

    Attributes:
        cwd: The call's working directory, if known.
        roots: The workspace roots, as effect paths show them (``/work/app``,
            ``~/project``; ``.`` when the working directory is not known).
        remembered: Remembered prefix approvals, as allow rules.
        repository: For a git command, why the repository it runs in cannot be
            trusted (a clause), or ``None`` when it can.
        profile: The profile in force (named in the sentence of an ask about a write).
        links: For the paths that lead elsewhere through a symbolic link, the
            classes of where they lead (`gateway_rules._context.look_at_disk`).
        programs: The programs named bare that ``PATH`` finds where the agent
            can write, and the file: judged as that file (``./python3``), not
            as the program a rule names (`gateway_rules._context.path_programs`).
    """

    cwd: str | None
    roots: tuple[str, ...]
    remembered: tuple[Rule, ...] = ()
    repository: Callable[[PlannedCommand], str | None] = lambda command: (
        "the repository git would use is not known"
    )
    profile: str = DEFAULT_PROFILE
    links: Mapping[str, tuple[str, ...]] = MappingProxyType({})
    programs: Mapping[str, str] = MappingProxyType({})


# ───────────────────────── sentences ─────────────────────────


def _sentence(
    decision: RuleDecision,
    subject: str,
    rule: Rule | None,
    clause: str,
    instead: str | None = None,
) -> str:
    verb = DECISION_VERBS[decision]
    where = f"rule {rule.id} " if rule is not None else ""
    tail = f"; {instead}" if instead else ""
    return f"{verb} {subject}: {where}{clause}{tail}."


def _subject(command: str | None) -> str:
    """How a sentence names what it judges: the command in backquotes, else the call."""
    return "the call" if command is None else f"`{command}`"


def _program_word(command: str | None) -> str | None:
    """The basename of the program a command's text starts with (after ``NAME=VALUE`` words)."""
    if command is None:
        return None
    word = next((w for w in command.split(" ") if "=" not in w), "")
    name = word.rsplit("/", 1)[-1]
    return name if name and name.isprintable() else None


def said_once(clause: str, command: str | None) -> str:
    """
    The clause without the program's name where the sentence already shows it (`` `ls -x` ``).

    Examples:
        >>> said_once("`ls` is given the option `-x`, which its table does not declare", "ls -x")
        'it is given the option `-x`, which its table does not declare'
        >>> said_once("it may never end (`tail --follow`), so it may outlive the call", "tail -f x")
        'it may never end (`--follow`), so it may outlive the call'
        >>> said_once("it runs code (`make the makefile's recipes`), code the rules cannot read", "make")
        "it runs code (the makefile's recipes), code the rules cannot read"
        >>> said_once("it runs code (`python3`), code the rules cannot read", "python3 x.py")
        'it runs code, code the rules cannot read'
    """
    program = _program_word(command)
    if program is None:
        return clause
    name = re.escape(program)
    clause = re.sub(rf"^`{name}` (is given|has no option table)", r"it \1", clause)
    clause = re.sub(rf"^the arguments of `{name}` cannot", "its arguments cannot", clause)

    def via(found: re.Match[str]) -> str:
        rest = found.group(1)
        if not rest or rest == "no operand" or rest == program:
            return ""
        return f" (`{rest}`)" if rest.startswith("-") or " " not in rest else f" ({rest})"

    return re.sub(rf" \(`{name}(?: ([^`]*))?`\)", via, clause)


def _judged(
    decision: RuleDecision,
    command: str | None,
    clause: str,
    instead: str | None = None,
    *,
    subject: str | None = None,
    hindrance: Hindrance | None = None,
    program: str | None = None,
) -> Judgement:
    """A judgement no rule gave, with its sentence (see `_sentence`)."""
    shown = subject or _subject(command)
    if shown == _subject(command):
        clause = said_once(clause, command)
    sentence = _sentence(decision, shown, None, clause, instead)
    return Judgement(decision, sentence, None, command, (), hindrance, program)


def _by_rule(
    rule: Rule, command: str | None, effect: Effect | None, *, subject: str | None = None
) -> Judgement:
    """The judgement ``rule`` gives, with the effect it applied to."""
    clause = rule.reason + (f" (it {describe(effect)})" if effect is not None else "")
    shown = subject or _subject(command)
    if shown == _subject(command):
        clause = said_once(clause, command)
    return Judgement(
        rule.decision,
        _sentence(rule.decision, shown, rule, clause, rule.instead),
        rule.id,
        command,
        (rule.id,),
    )


def _why(effect: Effect, profile: str) -> str:
    """Why an effect no rule permits is asked about, as the end of a clause."""
    if isinstance(effect, ReadEnvironment):
        if effect.variable is not None:
            return "and what it prints reaches the model"
        return "where credentials usually are, and what it prints reaches the model"
    if isinstance(effect, Read):
        if "unknown" in effect.path.classes:
            return "a path only known when it runs"
        if "secret" in effect.path.classes:
            return "which may hold credentials, and what it prints reaches the model"
        if "outside" in effect.path.classes:
            return f"which the {profile} profile does not declare readable"
        return "which no rule allows it to read"
    if isinstance(effect, Write):
        if "unknown" in effect.path.classes:
            return "a path only known when it runs"
        if profile == DEFAULT_PROFILE:
            return "and the read-only profile asks before any write"
        return f"which the {profile} profile does not allow"
    if isinstance(effect, Execute):
        if effect.kind == "number":
            return "and bash evaluates a value it cannot see as an expression that can run commands"
        if effect.kind == "code":
            return "code the rules cannot read"
        if effect.origin == "unknown":
            return "which the plan cannot see"
        return "which no rule allows"
    if isinstance(effect, Network):
        return "and the rules never allow the network by themselves"
    if isinstance(effect, Opaque):
        return "so what it does is not known"
    if isinstance(effect, Bind):
        if effect.via in ("set", "shopt"):
            return "which changes how the shell runs what follows, and no rule knows it harmless"
        if effect.name is not None and not any(c.islower() for c in effect.name):
            return "which programs may read from their environment, and no rule knows it harmless"
        return "which no rule allows"
    if isinstance(effect, Lifetime):
        return "so it may outlive the call or never end"
    return "which no rule allows"


def _unpermitted(
    effect: Effect,
    command: str | None,
    profile: str,
    *,
    subject: str | None = None,
    program: str | None = None,
) -> Judgement:
    """The ask about an effect no rule permits."""
    if isinstance(effect, Opaque):
        hindrance: Hindrance = "undeclared" if effect.option is not None else "opaque"
        return _judged(
            "ask", command, effect.reason, subject=subject, hindrance=hindrance, program=program
        )
    clause = f"it {describe(effect)}, {_why(effect, profile)}"
    code = isinstance(effect, Execute) and effect.kind == "code"
    return _judged(
        "ask",
        command,
        clause,
        subject=subject,
        hindrance="code" if code else None,
        program=program,
    )


# ───────────────────────── compiled rules ─────────────────────────


class _Compiled:
    """One rule, compiled: its selectors and its effect conditions."""

    __slots__ = ("conditions", "rule", "selectors")

    def __init__(self, rule: Rule) -> None:
        self.rule = rule
        self.selectors = Selectors(rule)
        self.conditions: tuple[Condition, ...] = tuple(
            compile_condition(
                name,
                tokens,
                actions=rule.write_actions if name == "writes" else (),
                recursive=rule.recursive if name == "writes" else None,
            )
            for name, tokens in rule.conditions.items()
        )

    def hit(self, effects: Sequence[Effect], roots: Sequence[str]) -> tuple[bool, Effect | None]:
        """For a decline or ask rule whose selectors hold: whether every condition has an effect that fits."""
        first: Effect | None = None
        for condition in self.conditions:
            found = next((e for e in effects if condition.hits(e, roots)), None)
            if found is None:
                return False, None
            first = first or found
        return True, first

    def asked_about(self, effects: Sequence[Effect], roots: Sequence[str]) -> list[Effect]:
        """For a decline or ask rule: every effect one of its conditions fits (none for a rule without conditions)."""
        return [e for e in effects if any(c.hits(e, roots) for c in self.conditions)]

    def permits(self, effect: Effect) -> bool:
        """For an allow rule whose selectors hold: whether one of its conditions permits the effect."""
        return any(condition.permits(effect) for condition in self.conditions)


class RuleSet:
    """
    A loaded, validated set of rules under one profile.

    Attributes:
        rules: Every rule, in load order.
        profile: The profile in force.
        confine_code: Whether code the rules cannot read (a script, a test
            runner, a build's recipes, a package's scripts) is allowed inside
            the profile's boundary instead of asked about (the profile's
            ``code = "confined"``): the command's other effects are still
            judged as ever, so what needs more than the boundary gives (the
            network, a write outside the workspace) still asks.
        active: The rules that count under it.
    """

    def __init__(
        self, rules: Sequence[Rule], profile: str = DEFAULT_PROFILE, *, confine_code: bool = False
    ) -> None:
        self.rules = tuple(rules)
        self.profile = profile
        self.confine_code = confine_code
        self.active = tuple(r for r in self.rules if not r.profiles or profile in r.profiles)
        compiled = [_Compiled(rule) for rule in self.active]
        self._declines = tuple(c for c in compiled if c.rule.decision == "decline")
        self._asks = tuple(c for c in compiled if c.rule.decision == "ask")
        allows = [c for c in compiled if c.rule.decision == "allow"]
        self._owners = tuple(c for c in allows if c.selectors.about_programs)
        self._tools = tuple(c for c in allows if c.selectors.about_tools)
        self._general = tuple(
            c for c in allows if not c.selectors.about_programs and not c.selectors.about_tools
        )
        self._by_id = {rule.id: rule for rule in self.active}

    # ── one command ──

    def _refusal(
        self,
        view: CommandView,
        effects: Sequence[Effect],
        context: JudgeContext,
        memory: Sequence[_Compiled] = (),
    ) -> tuple[Judgement | None, tuple[str, ...]]:
        """
        The decline or ask a rule gives the command (declines first), if any, and the asks ``memory`` outranked.

        A person's remembered prefix (``memory``: the ones that apply) takes
        the place of an ask rule that yields to it (`Rule.yields_to`) when
        every effect the rule asks about is the program's own and touches
        nothing `protected`: what they remembered is what the program does
        with its words. Never a decline.
        """
        text = command_text(view.command)
        program = view.program
        outranked: list[str] = []
        for group in (self._declines, self._asks):
            for compiled in group:
                if not compiled.selectors.command(view, context.cwd):
                    continue
                hit, effect = compiled.hit(effects, context.roots)
                if not hit:
                    continue
                if (
                    group is self._asks
                    and memory
                    and program is not None
                    and compiled.rule.yields_to == "prefix"
                    and all(
                        _own_effect(found, program) and not protected(found)
                        for found in compiled.asked_about(effects, context.roots)
                    )
                ):
                    outranked.append(compiled.rule.id)
                    continue
                return _by_rule(compiled.rule, text, effect), ()
            if group is self._declines:
                builtin = _builtin_decline(view.command, text, context)
                if builtin is not None:
                    return builtin, ()
        return None, tuple(outranked)

    def judge_command(
        self,
        command: PlannedCommand,
        context: JudgeContext,
        *,
        functions: frozenset[str] = frozenset(),
        found: Sequence[EffectPath] = (),
    ) -> Judgement:
        """
        Decide one command by the precedence in the module docstring.

        Args:
            command: The command.
            context: Where the call runs, and what else judging needs.
            functions: The functions the call defines.
            found: For the command of a ``find -exec``: the paths find walks,
                which ``{}`` stands for.
        """
        view = CommandView(command, context.programs)
        text = command_text(command)
        walked = walked_paths(found, context.links)
        effects = through_links(_with_found(command.effects, walked), context.links)
        # A remembered prefix covers the words a person saw: a word that only
        # gets its value when it runs ($X, $(…), a masked secret) was seen by no one.
        memory = (
            [
                c
                for r in context.remembered
                if (c := _Compiled(r)).selectors.command(view, context.cwd)
            ]
            if context.remembered and None not in view.args
            else []
        )
        refused, outranked = self._refusal(view, effects, context, memory)
        if refused is not None:
            return refused
        if (
            command.context == "function"
            and command.name in functions
            and (command.background or command.fed_by)
        ):
            return _judged(
                "decline",
                text,
                "a function that starts copies of itself in the background or a pipeline never stops (a fork bomb)",
            )
        position = command.position
        if command.name and command.name in functions:
            return _judged(
                "ask", text, f"`{command.name}` calls a shell function this call defines"
            )
        if position.refusal is not None and not position.refusal.runs_shell:
            return _judged("ask", text, _clause(position.reason))
        if position.decline == "stream_fed_operands":
            return _judged("ask", text, _clause(position.reason))
        owners = [c for c in self._owners if c.selectors.command(view, context.cwd)] + memory
        program = position.program
        if (
            program is not None
            and not owners
            and self.confine_code
            and not view.opaque_launchers
            and not command.nested
            and _workspace_program(view.program_path or program.name, context)
        ):
            return self._workspace_program(command, text, effects, view, context)
        if program is not None and not owners:
            on_path = context.programs.get(program.name)
            return _judged(
                "ask",
                text,
                f"no rule covers `{program.basename}`"
                + (f", which `PATH` finds at `{on_path}`" if on_path else ""),
                hindrance="uncovered",
                program=program.basename,
            )
        named = {name for c in owners for name in c.rule.launchers}
        hidden = [name for name in view.opaque_launchers if name not in named]
        if hidden:
            return _judged(
                "ask",
                text,
                f"it runs through `{hidden[0]}`, which no rule allows",
                hindrance="launcher",
                program=None if program is None else program.basename,
            )
        for nested in command.nested:
            if nested.status != "measured":
                return _judged(
                    "ask",
                    text,
                    f"what `{nested.via}` runs could not be read ({_clause(nested.reason)})",
                )
        general = [c for c in self._general if c.selectors.command(view, context.cwd)]
        return self._permit(
            effects, text, owners, general, context, command=command, outranked=outranked
        )

    def _workspace_program(
        self,
        command: PlannedCommand,
        text: str,
        effects: Sequence[Effect],
        view: CommandView,
        context: JudgeContext,
    ) -> Judgement:
        """
        A program of the workspace (``./tests/runtests.py``, ``scripts/build.sh``), under a profile that confines code.

        What it does is code the rules cannot read: it runs inside the
        boundary, and only the rest of the command (a redirect, a binding) is
        judged by the rules.
        """
        general = [c for c in self._general if c.selectors.command(view, context.cwd)]
        rest = [effect for effect in effects if not isinstance(effect, Opaque)]
        judged = self._permit(rest, text, (), general, context, command=command)
        if judged.decision != "allow":
            return judged
        shown = _subject(text)
        name = view.program_path or (
            command.position.program.name if command.position.program is not None else text
        )
        clause = (
            f"it runs `{name}`, a program of the workspace, code the rules cannot read, "
            f"allowed only inside the {context.profile} boundary"
        )
        return Judgement(
            "allow",
            _sentence("allow", shown, None, clause),
            None,
            text,
            judged.rules,
            confined=True,
        )

    def _permit(
        self,
        effects: Sequence[Effect],
        text: str | None,
        owners: Sequence[_Compiled],
        general: Sequence[_Compiled],
        context: JudgeContext,
        *,
        command: PlannedCommand | None = None,
        subject: str | None = None,
        outranked: tuple[str, ...] = (),
    ) -> Judgement:
        """
        Allow when every effect is permitted (module docstring, step 3), else ask about the first that is not.

        ``outranked``: the ask rules a remembered prefix among ``owners`` took the place of.
        """
        shown = subject or _subject(text)
        program = (
            command.position.program.basename
            if command is not None and command.position.program is not None
            else None
        )
        # A remembered approval is a person's word for the program's own
        # arguments (what its table could not state included), never for what
        # the shell adds around it (a redirect, a binding), nor for secrets
        # and persistence files: those still need rules.
        memory = next((c.rule for c in owners if c.rule.id.startswith(REMEMBERED_PREFIX)), None)
        vouched = program if memory is not None else None
        kept = [
            e for e in effects if vouched is None or not _own_effect(e, vouched) or protected(e)
        ]
        # The memory is what allows it when it vouched for something, or took an ask's place.
        memory_decides = memory is not None and (outranked or len(kept) < len(effects))
        effects = kept
        for effect in effects:
            if isinstance(effect, Opaque):
                return _unpermitted(effect, text, context.profile, subject=shown, program=program)
        used: dict[str, None] = {}
        permitted: set[str] = set()
        trusted: bool | None = None
        confined: Execute | None = None
        for effect in effects:
            if isinstance(effect, ChangeDirectory):
                continue  # the paths after it are resolved through it
            git = command is not None and _needs_repository(command, effect)
            if git and command is not None:
                if trusted is None:
                    refusal = context.repository(command)
                    if refusal is not None:
                        return _judged("ask", text, refusal, subject=shown)
                    trusted = True
                if isinstance(effect, Read):
                    continue  # inside the work tree the check found in the workspace
            if (
                command is not None
                and isinstance(effect, Execute)
                and effect.kind in ("program", "shell_text")
                and not any(n.via == effect.via and n.status == "measured" for n in command.nested)
            ):
                return _unpermitted(effect, text, context.profile, subject=shown, program=program)
            permitting = next((c for c in (*owners, *general) if c.permits(effect)), None)
            if (
                permitting is None
                and self.confine_code
                and isinstance(effect, Execute)
                and effect.kind == "code"
            ):
                confined = confined or effect  # what the boundary holds instead of a rule
                continue
            if permitting is None:
                return _unpermitted(effect, text, context.profile, subject=shown, program=program)
            used[permitting.rule.id] = None
            permitted.add(permitting.rule.id)
        rules = tuple(used)
        if confined is not None:
            clause = f"it {describe(confined)}, code the rules cannot read, allowed only inside the {context.profile} boundary"
            if shown == _subject(text):
                clause = said_once(clause, text)
            rule = next((c.rule for c in owners if c.rule.id in permitted), None)
            return Judgement(
                "allow",
                _sentence("allow", shown, None, clause),
                None if rule is None else rule.id,
                text,
                rules,
                confined=True,
            )
        if not owners:
            clause = (
                "it runs no program" if command is not None else "everything it does is allowed"
            )
            shown = subject or _subject(text or "(redirect)")
            return Judgement("allow", _sentence("allow", shown, None, clause), None, text, rules)
        # Name the rule about the program that vouched for an effect (`make
        # test` allowed by a team's rule, not by one that only allows `make -v`).
        rule = (
            memory
            if memory is not None and memory_decides
            else next((c.rule for c in owners if c.rule.id in permitted), owners[0].rule)
        )
        rules = (rule.id, *(r for r in rules if r != rule.id), *outranked)
        reason = rule.reason
        if outranked:
            plural = len(outranked) > 1
            reason += (
                f", in the place of rule{'s' if plural else ''} {', '.join(outranked)}, "
                f"which {'ask' if plural else 'asks'} a person"
            )
        return Judgement("allow", _sentence("allow", shown, rule, reason), rule.id, text, rules)

    def judge_effects(
        self, effects: Sequence[Effect], context: JudgeContext, *, tool: str | None = None
    ) -> Judgement:
        """
        Decide effects no command of the plan owns: a statement's own, a tool row's, or a tool call's.

        For a tool call (``tool`` given) the rules that name the tool count as
        rules about its program; otherwise only rules about no program apply.
        """
        subject = "the call" if tool is None else f"the tool `{tool}`"
        cwd = context.cwd
        effects = through_links(effects, context.links)

        def applies(compiled: _Compiled) -> bool:
            if tool is None:
                selectors = compiled.selectors
                return not selectors.about_tools and selectors.tool("", cwd)
            return compiled.selectors.tool(tool, cwd)

        for group in (self._declines, self._asks):
            for compiled in group:
                if applies(compiled):
                    hit, effect = compiled.hit(effects, context.roots)
                    if hit:
                        return _by_rule(compiled.rule, None, effect, subject=subject)
        owners = [c for c in self._tools if applies(c)] if tool is not None else []
        if tool is not None and not owners:
            return Judgement("ask", f"Asked about {subject}: no rule covers it.", None)
        general = [c for c in self._general if applies(c)]
        return self._permit(effects, None, owners, general, context, subject=subject)

    def applying(self, request: ReviewRequest, context: JudgeContext) -> set[str]:
        """The ids of the decline and ask rules that apply to some part of a request (for examples)."""
        found: set[str] = set()
        refusing = (*self._declines, *self._asks)
        if request.plan is None:
            tool = request.call.tool
            for compiled in refusing:
                if compiled.selectors.tool(tool, context.cwd):
                    hit, _ = compiled.hit(request.effects, context.roots)
                    if hit:
                        found.add(compiled.rule.id)
            return found
        plans = [s.plan for s in request.plan.statements]
        for plan in plans:
            for command, walked in _commands(plan, ()):
                view = CommandView(command, context.programs)
                effects = _with_found(command.effects, walked)
                for compiled in refusing:
                    if compiled.selectors.command(view, context.cwd):
                        hit, _ = compiled.hit(effects, context.roots)
                        if hit:
                            found.add(compiled.rule.id)
        own = [effect for plan in _with_nested(plans) for effect in plan.effects]
        for compiled in refusing:
            if own and compiled.selectors.tool("", context.cwd):
                hit, _ = compiled.hit(own, context.roots)
                if hit:
                    found.add(compiled.rule.id)
        return found

    def rule(self, rule_id: str) -> Rule | None:
        """The rule in force with this id, if any."""
        return self._by_id.get(rule_id)

    def _firm(self, rule_id: str | None) -> bool:
        """Whether the rule with this id asks every time, whatever a person remembered."""
        rule = self._by_id.get(rule_id or "")
        return rule is not None and rule.yields_to == "never"

    # ── a whole plan ──

    def judge_plans(self, plans: Sequence[Plan], context: JudgeContext) -> list[Judgement]:
        """Judge every command of some plans (nested text included), and each statement's own effects."""
        every = list(_with_nested(plans))
        functions = frozenset(name for plan in every for name in plan.functions)
        judgements = [
            self.judge_command(command, context, functions=functions, found=found)
            for plan in plans
            for command, found in _commands(plan, ())
        ]
        own = [effect for plan in every for effect in plan.effects]
        if own:
            judgements.append(self.judge_effects(own, context))
        return judgements

    def evaluate(
        self,
        request: ReviewRequest,
        context: JudgeContext,
        *,
        digest_allowed: tuple[str, str] | None = None,
    ) -> tuple[Answer, list[Judgement]]:
        """
        Answer one review request; return the answer and the judgements it rests on.

        ``digest_allowed`` is a remembered approval of this exact plan (its
        digest, anywhere or in this session): its id and the clause that says
        who remembered it when. It allows the call in the place of every ask
        but one whose rule never yields (`Rule.yields_to`), and never past a decline.

        An allow of a call that does more than read says every effect, writes
        first (`_stating_effects`): a rule's reason speaks of the program it
        names, and a redirect or an option may make the call write.
        """
        answer, judgements = self._evaluate(request, context, digest_allowed=digest_allowed)
        remembered = isinstance(answer, Allow) and (answer.rule or "").startswith(REMEMBERED_PREFIX)
        if isinstance(answer, Allow) and judgements and not remembered:
            answer = _stating_effects(answer, judgements, _stated_effects(request), request)
        return answer, judgements

    def _evaluate(
        self,
        request: ReviewRequest,
        context: JudgeContext,
        *,
        digest_allowed: tuple[str, str] | None = None,
    ) -> tuple[Answer, list[Judgement]]:
        plans: list[Plan] = []
        if request.kind == "hole":
            if request.hole is None:
                return Abstain(reason="The hole question carries no hole."), []
            plans = list(request.hole.plans)
        elif request.kind == "body":
            if request.body_plan is None:
                return Abstain(
                    reason="The completed heredoc body is not shell text, so the rules cannot judge it; a person must."
                ), []
            if request.body_plan.status != "measured":
                return Abstain(
                    reason=f"The completed heredoc body could not be read with confidence ({_clause(request.body_plan.reason)})."
                ), []
            plans = [s.plan for s in request.body_plan.statements]
        elif request.plan is None:
            judgements = [self.judge_effects(request.effects, context, tool=request.call.tool)]
            return _answer(judgements, self.profile), judgements
        else:
            plan = request.plan
            hazard = plan.display_hazard
            if plan.status != "measured":
                reason = f"The command could not be read with confidence ({_clause(plan.reason)}), so the rules do not allow it"
                if hazard:
                    reason += f", and {hazard}"
                return Abstain(reason=reason + "."), []
            plans = [s.plan for s in plan.statements]
            judgements = self.judge_plans(plans, context)
            extra = _tool_row_effects(request)
            if extra:
                judgements.append(self.judge_effects(extra, context))
            if hazard:
                judgements.append(Judgement("ask", f"Asked about the call: {hazard}.", None))
            if not plans:
                return Allow(reason="The command is empty: it runs nothing.", rule=None), judgements
            if digest_allowed is not None and not any(
                j.decision == "decline" or (j.decision == "ask" and self._firm(j.rule))
                for j in judgements
            ):
                memory, clause = digest_allowed
                return Allow(
                    reason=f"Allowed this exact command: {clause}.",
                    rule=f"{REMEMBERED_PREFIX}{memory}",
                ), judgements
            return _answer(judgements, self.profile), judgements
        judgements = self.judge_plans(plans, context)
        return _answer(judgements, self.profile), judgements


def _stated_effects(request: ReviewRequest) -> Sequence[Effect]:
    """What an allow of ``request`` must say: the whole call's effects, or the hole's or body's."""
    if request.kind == "hole" and request.hole is not None:
        return [e for plan in request.hole.plans for _, e in iter_effects(plan)]
    if request.kind == "body" and request.body_plan is not None:
        return [e for s in request.body_plan.statements for _, e in iter_effects(s.plan)]
    if request.plan is not None:
        planned = (e for s in request.plan.statements for _, e in iter_effects(s.plan))
        return [*_tool_row_effects(request), *planned]
    return request.effects


def _stating_effects(
    answer: Allow,
    judgements: Sequence[Judgement],
    effects: Sequence[Effect],
    request: ReviewRequest,
) -> Allow:
    """
    ``answer`` said by what the call does when it does more than read: ``Allowed X: it writes `f`; rules A, B.``

    A call that only reads (or lists) keeps the rule's own sentence, which
    says just that; an allow that holds only inside a boundary keeps its
    reason, which says why, and adds the effects.
    """
    clauses = effect_clauses(effects)
    if all(clause.reads for clause in clauses):
        return answer
    rules = list(dict.fromkeys(rule for j in judgements for rule in j.rules if rule))
    named = ", ".join(rules[:6]) + ("…" if len(rules) > 6 else "")
    warrant = f"; {'rule' if len(rules) == 1 else 'rules'} {named}" if rules else ""
    said = say_clauses(clauses)
    if isinstance(answer.within, str):
        # A confined allow's own reason says why the boundary holds it: kept, with the effects.
        return replace(answer, reason=f"{answer.reason.rstrip('.')}; it {said}.")
    subject = _call_subject(judgements, request)
    return replace(answer, reason=f"Allowed {subject}: it {said}{warrant}.")


def _call_subject(judgements: Sequence[Judgement], request: ReviewRequest) -> str:
    """The call as an allow sentence names it: its one command, the tool, or the call."""
    if request.kind == "call" and request.plan is None:
        return f"the tool `{request.call.tool}`"
    commands = {j.command for j in judgements if j.command is not None}
    return _subject(commands.pop()) if len(commands) == 1 else "the call"


def _tool_row_effects(request: ReviewRequest) -> list[Effect]:
    """
    The effects of a shell call that its plan does not state: its tool row's (``env``, ``user``).

    The gateway puts them first in `ReviewRequest.effects`, before every
    effect of the plan (`gateway.effects.iter_effects` of each statement).
    """
    if request.plan is None:
        return []
    planned = sum(1 for s in request.plan.statements for _ in iter_effects(s.plan))
    extra = len(request.effects) - planned
    return list(request.effects[:extra]) if extra > 0 else []


def _builtin_decline(command: PlannedCommand, text: str, context: JudgeContext) -> Judgement | None:
    """The declines no rule is needed for: what runs is only known when it runs."""
    position = command.position
    if position.dynamic_program:
        return _judged(
            "decline",
            text,
            "the program comes from an expansion and is only known when it runs",
            "name the program literally",
        )
    for nested in command.nested:
        if nested.status == "dynamic" and nested.origin == "expansion":
            return _judged(
                "decline",
                text,
                f"the text `{nested.via}` runs is built at run time, so no one can see it first",
            )
        if nested.status == "dynamic" and nested.origin == "stdin" and command.fed_by:
            return _judged(
                "decline",
                text,
                f"`{command.fed_by[-1]}` pipes text into a shell, which runs it unseen",
                "save it to a file, read it, then run it",
            )
    return None


def _workspace_program(name: str, context: JudgeContext) -> bool:
    """Whether a program named by a path (``./x.sh``, ``tools/run``, ``/work/app/x``) lies in the workspace."""
    if "/" not in name or context.cwd is None or not context.cwd.startswith("/"):
        return False
    path = posixpath.normpath(posixpath.join(context.cwd, name))
    roots = [context.cwd, *(root for root in context.roots if root.startswith("/"))]
    return any(path.startswith(posixpath.normpath(root).rstrip("/") + "/") for root in roots)


def _needs_repository(command: PlannedCommand, effect: Effect) -> bool:
    """True when allowing ``effect`` of a git command rests on the repository check."""
    if command.position.program is None or command.position.program.basename != "git":
        return False
    if isinstance(effect, Execute):
        return effect.kind == "configured"
    return isinstance(effect, Read) and effect.path.value is None and effect.via in GIT_ROLE_READS


REMEMBERED_PREFIX: Final = "remembered."
"""The id prefix of the allow rules remembered approvals become (``remembered.`` and the approval's id)."""

PROTECTED_CLASSES: Final = frozenset({"secret", "persistence"})
"""Path classes no remembered prefix vouches for: what a person allowing a program did not mean to hand it."""


def protected(effect: Effect) -> bool:
    """
    Whether a remembered prefix never vouches for an effect, however much the person allowed.

    Reads and writes of secrets and persistence files (``tail -f`` remembered
    does not read ``~/.ssh/id_rsa``; ``sed -i`` does not edit ``~/.bashrc``),
    and reading the whole environment or a secret variable.
    """
    if isinstance(effect, Read | Write):
        return not PROTECTED_CLASSES.isdisjoint(effect.path.classes)
    return isinstance(effect, ReadEnvironment)


def _own_effect(effect: Effect, program: str) -> bool:
    """Whether an effect comes from the program's own arguments (not from the shell around it)."""
    if isinstance(effect, Opaque):
        return True
    via = getattr(effect, "via", "")
    return via == program or via.startswith(program + " ")


def _with_found(effects: Sequence[Effect], found: Sequence[EffectPath]) -> Sequence[Effect]:
    """``{}`` in a ``find -exec`` command stands for every path find walks: give it their classes."""
    if not found:
        return effects
    out: list[Effect] = []
    for effect in effects:
        if (
            isinstance(effect, Read | Write)
            and effect.path.written == _FOUND
            and effect.path.value is None
        ):
            out.extend(replace(effect, path=path) for path in found)
        else:
            out.append(effect)
    return out


def _commands(
    plan: Plan, found: Sequence[EffectPath]
) -> Iterator[tuple[PlannedCommand, Sequence[EffectPath]]]:
    """Every command of a plan with what ``{}`` stands for in it, nested text included."""
    for command in plan.commands:
        yield command, found
        walked = tuple(
            e.path
            for e in command.effects
            if isinstance(e, Read) and e.recursive and e.via == "find starting point"
        )
        for nested in command.nested:
            inner = walked if nested.via.rsplit(" ", 1)[-1] in _FIND_EXEC else ()
            for inner_plan in nested.plans:
                yield from _commands(inner_plan, inner)


def _with_nested(plans: Iterable[Plan]) -> Iterator[Plan]:
    """The plans and, recursively, the plans of the shell text their commands launch."""
    for plan in plans:
        yield plan
        for command in plan.commands:
            for nested in command.nested:
                yield from _with_nested(nested.plans)


def _clause(sentence: str | None) -> str:
    if not sentence:
        return "no reason given"
    sentence = sentence.strip().rstrip(".")
    return sentence[:1].lower() + sentence[1:]


def _answer(judgements: Sequence[Judgement], profile: str = DEFAULT_PROFILE) -> Answer:
    """
    The strictest judgement as an answer (decline, else ask → abstain, else allow).

    An allow with a confined judgement holds only inside the profile's
    boundary (`Allow.within`), and its reason is that judgement's.
    """
    if not judgements:
        return Allow(reason="Nothing in the call runs a program.", rule=None)
    worst = max(judgements, key=lambda j: strictness(j.decision))
    if worst.decision == "decline":
        return Decline(reason=worst.reason, rule=worst.rule)
    if worst.decision == "ask":
        return Abstain(reason=worst.reason, rule=worst.rule)
    confined = [j for j in judgements if j.confined]
    if len(judgements) == 1 or len(confined) == 1:
        chosen = confined[0] if confined else worst
        if confined:
            return Allow(reason=chosen.reason, rule=chosen.rule, within=profile)
        return Allow(reason=chosen.reason, rule=chosen.rule)
    rules = sorted({j.rule for j in judgements if j.rule})
    named = ", ".join(rules[:4]) + ("…" if len(rules) > 4 else "")
    reason = f"Allowed: every one of the {len(judgements)} commands is allowed ({named or 'no program runs'})"
    if confined:
        return Allow(
            reason=f"{reason}, {len(confined)} of them only inside the {profile} boundary, as they run code the rules cannot read.",
            rule=rules[0] if len(rules) == 1 else None,
            within=profile,
        )
    return Allow(reason=reason + ".", rule=rules[0] if len(rules) == 1 else None)
