"""
The tree walk: one statement of the neutral syntax tree → its `Plan`, with every effect.

The walk follows bash's order of execution and carries a `Scope` (where
commands run, what the call has bound): a pipeline stage, a subshell, a
substitution or a background job gets a copy; the branches of an ``if`` or a
``case``, a loop body and a ``cd`` that may fail are merged. Each simple
command is published with its program position, its heredocs (flat indexes),
the shell text it launches (planned in turn, to a bounded depth) and its
effects; what the statement's own syntax does (a bare assignment, ``(( ))``,
``[[ ]]``, a loop, a function definition, a compound command's redirects, a
coprocess and the names it binds) is published as the plan's effects.

A builder publishes either the plan as it is (for digests) or with its secrets
masked (for everyone else); the walk is the same, only the masking differs.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Final, NamedTuple

import msgspec

from gateway._calls._effects import (
    Bind,
    Effect,
    EffectPath,
    Execute,
    ExecuteKind,
    Lifetime,
    Network,
    Origin,
    Read,
    ReadEnvironment,
    Write,
    WriteAction,
)
from gateway._calls._places import shown_variable
from gateway._calls._plans import (
    PLAN_RENDER_LIMIT,
    CommandContext,
    Hole,
    NestedShell,
    Plain,
    Plan,
    PlannedAssignment,
    PlannedCommand,
    PlannedHeredoc,
    PlannedRedirect,
    PlannedValue,
    ProgramPosition,
)
from gateway._plan._addresses import address_class
from gateway._plan._builtins import BASH_BUILTINS, CHANGES_DIRECTORY, builtin_effects, literal_text
from gateway._plan._collect import EffectSink, unmasked
from gateway._plan._dialect import dash_differs, reads_as_dash
from gateway._plan._kinds import statement_kind
from gateway._plan._launchers import LAUNCHERS, SHELLS, STARTUP_FUNCTION_PREFIX, STARTUP_VARIABLES
from gateway._plan._nested import NestedRequest, filled_inside, join_values, nested_requests
from gateway._plan._numbers import NUMBER
from gateway._plan._parts import expansion_kinds, inert, substitutions, walk_parts
from gateway._plan._paths import HOME, PathContext
from gateway._plan._position import PositionReading, PositionWord, direct_position, read_position
from gateway._plan._programs import (
    ArgumentReader,
    bounded,
    fact_via,
    launcher_effects,
    program_effects,
    stand_ins,
    stays_one_word,
    word_shapes,
)
from gateway._plan._redact import Redactor, Secret, find_secrets
from gateway._plan._scope import FunctionFacts, Scope
from gateway._plan._variables import arithmetic_binds, heredoc_reads, statement_names
from gateway._programs import ArgumentFact, ArgumentReading
from gateway._programs._lasting import device_read_ends, unending
from gateway._read import ShellReading, read_shell
from gateway._read._conditional import ARITHMETIC_OPERATORS
from gateway._read._source import Source
from gateway._read._tree import (
    AndOr,
    ArithCommand,
    ArithFor,
    Arithmetic,
    Assignment,
    Brace,
    Case,
    Command,
    Coproc,
    For,
    Function,
    Group,
    Heredoc,
    If,
    Literal,
    Parameter,
    Part,
    Pipeline,
    ProcessSubstitution,
    Redirect,
    SimpleCommand,
    Statement,
    Subshell,
    Test,
    While,
    Word,
)
from gateway._read._words import NAME

__all__ = [
    "MAX_NESTED_SHELL_DEPTH",
    "TRUNCATION_MARKER",
    "Builder",
    "PlannedStatement",
    "PlanningRun",
    "position_words",
]

MAX_NESTED_SHELL_DEPTH: Final = 4
"""How deep shell text inside shell text (``sh -c "bash -c '…'"``) is planned."""
TRUNCATION_MARKER: Final = f"\n[rendering truncated at {PLAN_RENDER_LIMIT} bytes]"
MAX_BRACE_RANGE: Final = 100_000
"""A brace range with more items than this (``{1..10000000}``) is unbounded work."""
MAX_PIPELINE_STAGES: Final = 256
"""The most stages a pipeline may have: each stage names every program before it (``fed_by``)."""
_DEVICE_SOCKET: Final = re.compile(r"/dev/(tcp|udp)/([^/]+)/(.+)")
_RANGE: Final = re.compile(r"(-?[0-9]+)\.\.(-?[0-9]+)(?:\.\.(-?[0-9]+))?")
_WRITES: Final[dict[str, WriteAction]] = {
    ">": "write",
    ">|": "write",
    ">>": "append",
    "&>": "write",
    "&>>": "append",
    "<>": "write",
}


class TooLarge(Exception):
    """The text is larger than the planner plans (one sentence of reason)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class PlannedStatement(NamedTuple):
    """A statement's plan, with what fragments need: its heredoc nodes and their holes."""

    plan: Plan
    heredocs: tuple[Heredoc, ...]
    holes: tuple[tuple[Hole, ...], ...]
    """For each heredoc (by flat index), the holes of its body (empty when literal)."""


def position_words(words: Sequence[Word]) -> list[PositionWord]:
    """The position reader's view of neutral-tree words."""
    return [
        PositionWord(
            text=word.text,
            value=word.value,
            bare=len(word.parts) == 1
            and isinstance(word.parts[0], Literal)
            and word.parts[0].text == word.text,
            one_word=word.value is None and stays_one_word(word),
        )
        for word in words
    ]


def _truncate(text: str) -> str:
    data = text.encode("utf-8", "surrogatepass")
    if len(data) <= PLAN_RENDER_LIMIT:
        return text
    return data[:PLAN_RENDER_LIMIT].decode("utf-8", "ignore") + TRUNCATION_MARKER


def _sub_context(
    parent: CommandContext, *, process: bool = False, heredoc: bool = False
) -> CommandContext:
    """The context of commands found inside a command whose context is ``parent``."""
    if parent not in ("command", "substitution", "process_substitution"):
        return parent  # inside a function body or a heredoc hole, they stay there
    if heredoc:
        return "heredoc"
    return "process_substitution" if process else "substitution"


class PlanningRun:
    """
    What one planning of a call shares: the readings of every text, their secrets, and the options.

    Each text (the call's, and each nested literal) is read once per run and
    its secrets found once, whatever pass asks again.
    """

    def __init__(self, paths: PathContext, read_arguments: ArgumentReader) -> None:
        self.paths = paths
        self.read_arguments = read_arguments
        self.readings: dict[str, ShellReading] = {}
        self.found: dict[str, tuple[Secret, ...]] = {}
        self.reads = 0

    def reading(self, text: str) -> ShellReading:
        """The shell reader's reading of ``text`` (read once per run)."""
        found = self.readings.get(text)
        if found is None:
            self.reads += 1
            found = self.readings[text] = read_shell(text)
        return found

    def secrets(self, text: str) -> tuple[Secret, ...]:
        """The literal secrets of ``text`` (found once per run)."""
        found = self.found.get(text)
        if found is None:
            found = self.found[text] = find_secrets(text)
        return found

    def saw_secret(self) -> bool:
        """True when any text read so far holds a secret."""
        return any(self.found.values())


class Builder:
    """Plans the statements of one text (the call's, or nested shell text) in one pass."""

    def __init__(self, source: Source, run: PlanningRun, depth: int, *, redact: bool) -> None:
        self.source = source
        self.run = run
        self.depth = depth
        self.redact = redact
        secrets = run.secrets(source.text)
        self.redactor = Redactor(source.text, secrets if redact else ())
        self.scrub: Callable[[str], str] = self.redactor.scrub if redact and secrets else unmasked
        self.commands: list[PlannedCommand] = []
        self.effects: list[Effect] = []
        self.heredocs: list[Heredoc] = []
        self.holes: list[tuple[Hole, ...]] = []
        self.pending: list[Redirect] = []
        self.fed_by: tuple[str, ...] = ()
        self.placeholders: frozenset[int] = frozenset()
        """Offsets of words another program fills in (``find -exec … {}``)."""
        self.background_via = "&"
        """What put the commands being walked in the background: ``&``, or ``coproc``."""

    # ── values ──

    def value(self, start: int, end: int, text: str | None = None) -> PlannedValue:
        return self.redactor.value(start, end, text)

    def word_text(self, word: Word) -> PlannedValue:
        return self.value(word.span.start, word.span.end)

    def word_value(self, word: Word) -> PlannedValue | None:
        if word.value is None:
            return None
        return self.value(word.span.start, word.span.end, word.value)

    def written(self, word: Word) -> str:
        """A word's source text, its secrets masked when this builder masks."""
        return self.redactor.mask(word.span.start, word.span.end)

    def names(self, names: Sequence[str]) -> tuple[str, ...]:
        """Variable or function names to publish, any secret among them masked."""
        if self.scrub is unmasked:
            return tuple(names)
        return tuple([self.scrub(name) for name in names])

    def derived(self, text: str) -> PlannedValue:
        """A value not cut from this source (nested text): its secrets are found afresh."""
        secrets = self.run.secrets(text)
        if not self.redact or not secrets:
            return Plain(text)
        return Redactor(text, secrets).value(0, len(text))

    def sink(self, scope: Scope, found: list[Effect] | None = None) -> EffectSink:
        """A sink for effects in ``scope`` (the statement's own effects unless ``found`` is given)."""
        sink = EffectSink(scope, self.run.paths, self.scrub, self.written)
        sink.found = self.effects if found is None else found
        sink.numbers.found = sink.found
        sink.placeholders = self.placeholders
        return sink

    # ── statements ──

    def statement(self, statement: Statement, scope: Scope) -> PlannedStatement:
        """Plan one top-level statement in ``scope`` (which it changes as bash would)."""
        self.commands, self.effects, self.heredocs, self.holes = [], [], [], []
        earlier = frozenset(scope.variables)  # bound by the call before this statement
        self.walk_statements((statement,), background=False, context="command", scope=scope)
        names = statement_names(statement)
        free, bound = names.free_and_bound()
        # A variable from outside that is not declared harmless to show is
        # read as the environment is: the text prints or sends it as it
        # pleases. One the statement binds at run time (`read`, a loop) is
        # its own.
        if free:
            shown = self.run.paths.shown_variables
            binds = {
                effect.name
                for effects in (self.effects, *(command.effects for command in self.commands))
                for effect in effects
                if isinstance(effect, Bind)
            }
            self.effects.extend(
                ReadEnvironment(via=f"${self.scrub(name)}")
                for name in free
                if name not in earlier and name not in binds and not shown_variable(name, shown)
            )
        rendered = _truncate(self.redactor.mask(statement.span.start, statement.span.end))
        plan = Plan(
            rendered=rendered,
            statement_kind=statement_kind(statement),
            commands=tuple(self.commands),
            # Names are identifiers, but a token can be one (`$(( ghp_… + 1 ))`).
            free_variables=self.names(free),
            bound_variables=self.names(bound),
            arithmetic_variables=self.names(sorted(set(names.arithmetic) - set(bound)))
            if names.arithmetic
            else (),
            functions=self.names(sorted(set(names.functions))) if names.functions else (),
            effects=tuple(self.effects),
        )
        return PlannedStatement(plan, tuple(self.heredocs), tuple(self.holes))

    def walk_statements(
        self,
        statements: Sequence[Statement],
        *,
        background: bool,
        context: CommandContext,
        scope: Scope,
        inherited: tuple[PlannedRedirect, ...] = (),
    ) -> None:
        outer = self.fed_by
        for statement in statements:
            detached = statement.terminator == "&"
            run_in = scope.copy() if detached else scope  # a background job is a subshell
            self.walk_andor(
                statement.body,
                background=background or detached,
                context=context,
                scope=run_in,
                inherited=inherited,
            )
        self.fed_by = outer

    def walk_andor(
        self,
        andor: AndOr,
        *,
        background: bool,
        context: CommandContext,
        scope: Scope,
        inherited: tuple[PlannedRedirect, ...],
    ) -> None:
        """``a && b || c``: each pipeline runs after the one before succeeded (``&&``) or failed (``||``)."""
        ends: list[Scope] = []
        failed: Scope | None = None
        for index, pipeline in enumerate(andor.pipelines):
            if index:
                operator = andor.operators[index - 1]
                succeeded = scope.copy()
                if operator == "||":  # runs only when the one before failed
                    ends.append(succeeded)
                    if failed is not None:
                        scope.replace(failed)
                else:  # runs only when the one before succeeded
                    ends.append(failed or succeeded)
            before = scope.copy()
            self.walk_pipeline(
                pipeline, background=background, context=context, scope=scope, inherited=inherited
            )
            failed = before if _may_fail_unchanged(pipeline) else None
        if failed is not None:
            ends.append(failed)
        if ends:
            scope.replace(Scope.union([scope, *ends]))

    def walk_pipeline(
        self,
        pipeline: Pipeline,
        *,
        background: bool,
        context: CommandContext,
        scope: Scope,
        inherited: tuple[PlannedRedirect, ...],
    ) -> None:
        upstream: list[str] = []
        alone = len(pipeline.commands) == 1
        if len(pipeline.commands) > MAX_PIPELINE_STAGES:
            raise TooLarge(
                f"A pipeline has {len(pipeline.commands)} stages, over the {MAX_PIPELINE_STAGES} the planner plans."
            )
        for command in pipeline.commands:
            self.fed_by = tuple(upstream)
            first = len(self.commands)
            # Every stage of a real pipeline runs in a subshell of its own.
            self.walk_command(
                command,
                background=background,
                context=context,
                scope=scope if alone else scope.copy(),
                inherited=inherited,
            )
            if not alone and isinstance(command, Coproc):
                # bash 5.2 may run a coprocess stage in the shell running the
                # pipeline, which then holds its name and id for a while (or not).
                target = scope.namerefs.get(command.name, command.name)
                if NAME.fullmatch(target):
                    scope.forget_variables((target, target + "_PID"))
            upstream.extend(
                c.position.program.basename
                for c in self.commands[first:]
                if c.context == context and c.position.program is not None
            )

    def walk_parts_commands(
        self,
        parts: Sequence[Part],
        *,
        background: bool,
        context: CommandContext,
        scope: Scope,
        heredoc: bool = False,
    ) -> None:
        """Walk the bodies of the substitutions among ``parts`` (each in a subshell of ``scope``)."""
        if inert(parts):
            return
        outer, self.fed_by = self.fed_by, ()
        for sub in substitutions(parts):
            inner = _sub_context(
                context, process=isinstance(sub, ProcessSubstitution), heredoc=heredoc
            )
            self.walk_statements(sub.body, background=background, context=inner, scope=scope.copy())
        self.fed_by = outer

    # ── expansions in words ──

    def expand(self, parts: Sequence[Part], sink: EffectSink, *, via: str | None = None) -> None:
        """What expanding a word does in the shell: number sites, ``${V:=…}`` binds, huge brace ranges."""
        if inert(parts):
            return
        for walked in walk_parts(parts):
            part = walked.part
            if isinstance(part, Arithmetic):
                sink.numbers.arithmetic(part, via or self.arithmetic_via(part))
                for name in arithmetic_binds(part.expression):
                    sink.bind(name, "arithmetic", "literal", frozenset({NUMBER}))
            elif isinstance(part, Parameter):
                self.parameter(part, sink)
            elif isinstance(part, Brace):
                self.brace(part, sink)

    def arithmetic_via(self, part: Arithmetic) -> str:
        text = self.source.text
        if text.startswith("$((", part.span.start):
            return "$(( ))"
        if text.startswith("$[", part.span.start):
            return "$[ ]"
        if text.startswith("((", part.span.start):
            return "(( ))"
        return "subscript"

    def parameter(self, part: Parameter, sink: EffectSink) -> None:
        name = part.name
        if not part.special and name in sink.scope.namerefs and not part.indirect:
            self.through_nameref(name, sink)
        if part.indirect and not part.special:
            # `${!x}` reads the variable x names; a subscript in that name is evaluated.
            sink.numbers.variable(name, "${!…}")
        if part.operator in (":=", "=") and not part.special:
            texts = [literal_text(p) for p in part.operand]
            literal = None if any(t is None for t in texts) else "".join(t or "" for t in texts)
            operand = Word(span=part.span, text="", parts=part.operand, value=literal)
            origin, values = sink.origin(operand)
            known = sink.scope.values(name)
            if known is not None and "" not in known and part.operator == ":=":
                return  # already set and not empty: nothing is assigned
            if known is not None and part.operator == "=":
                return  # already set (possibly empty): nothing is assigned
            text = None if values is None or len(values) != 1 else next(iter(values))
            sink.bind(name, "default", origin, None if known is None else values, text=text)
        if part.operator == "@P":
            # Prompt expansion runs the command substitutions in the value.
            values = sink.scope.values(name)
            single = None if values is None or len(values) != 1 else next(iter(values))
            sink.add(
                Execute(
                    kind="expansion",
                    via="${…@P}",
                    text=None if single is None else self.scrub(single),
                    origin="unknown" if values is None else "call_bound",
                )
            )

    def through_nameref(self, name: str, sink: EffectSink) -> None:
        """
        ``$r`` where ``r`` is a nameref: bash reads the variable it names, evaluating a subscript in that name.

        A target only known at run time may be any variable, or an array
        element whose subscript runs a command (``declare -n r=$x; echo $r``);
        a named one from outside is read as ``$TARGET`` itself is.
        """
        scope = sink.scope
        via = f"${name} (a nameref)"
        target = scope.namerefs[name]
        base, bracket, rest = target.partition("[")
        if not NAME.fullmatch(base):
            sink.numbers.value(None, None, via)
            return
        if bracket:
            sink.numbers.value(rest.removesuffix("]"), None, via)
            return
        referent = scope.referent(name)
        if referent is None:
            sink.numbers.value(None, None, via)
        elif not scope.bound(referent) and not shown_variable(
            referent, self.run.paths.shown_variables
        ):
            sink.add(ReadEnvironment(via=f"${self.scrub(referent)}"))

    def brace(self, part: Brace, sink: EffectSink) -> None:
        if not all(isinstance(p, Literal) for p in part.parts):
            return
        found = _RANGE.fullmatch("".join(p.text for p in part.parts if isinstance(p, Literal)))
        if found is None:
            return
        low, high = int(found.group(1)), int(found.group(2))
        step = abs(int(found.group(3) or 1)) or 1
        if abs(high - low) // step + 1 > MAX_BRACE_RANGE:
            sink.add(Lifetime(kind="unbounded", via="brace range"))

    # ── compound commands ──

    def walk_command(
        self,
        command: Command,
        *,
        background: bool,
        context: CommandContext,
        scope: Scope,
        inherited: tuple[PlannedRedirect, ...],
    ) -> None:
        if isinstance(command, SimpleCommand):
            self.simple(
                command, background=background, context=context, scope=scope, inherited=inherited
            )
            return
        own: list[PlannedRedirect] = []
        statement_sink = self.sink(scope)
        for redirect in command.redirects:
            if redirect.heredoc is not None:
                self.pending.append(redirect)
            else:
                own.append(self.redirect(redirect, inherited=True))
                if redirect.target is not None:
                    self.expand(redirect.target.parts, statement_sink)
                self.redirect_effects(redirect, statement_sink)
        into = inherited + tuple(own)
        pending_before = len(self.pending) - sum(
            1 for r in command.redirects if r.heredoc is not None
        )
        for redirect in command.redirects:
            if redirect.target is not None and redirect.heredoc is None:
                self.walk_parts_commands(
                    redirect.target.parts, background=background, context=context, scope=scope
                )
        walk = _Compound(self, background=background, context=context, inherited=into)
        walk.command(command, scope)
        if len(self.pending) > pending_before:
            # A heredoc on a compound that ran no simple command still feeds it: publish it.
            self.emit_empty(background=background, context=context, inherited=into, scope=scope)

    def emit_empty(
        self,
        *,
        background: bool,
        context: CommandContext,
        inherited: tuple[PlannedRedirect, ...],
        scope: Scope,
    ) -> None:
        taken, heredocs = self.take_heredocs((), scope)
        self.commands.append(
            PlannedCommand(
                name="",
                args=(),
                redirects=inherited,
                background=background,
                heredocs=heredocs,
                context=context,
            )
        )
        self.walk_heredoc_bodies(taken, background=background, context=context, scope=scope)

    # ── heredocs ──

    def take_heredocs(
        self, own: Sequence[Redirect], scope: Scope
    ) -> tuple[list[Redirect], tuple[PlannedHeredoc, ...]]:
        """Index the pending compound heredocs, then the command's own, in that order."""
        if not own and not self.pending:
            return [], ()
        taken = [*self.pending, *(r for r in own if r.heredoc is not None)]
        self.pending = []
        return taken, tuple(self.heredoc(r.heredoc, scope) for r in taken if r.heredoc is not None)

    def walk_heredoc_bodies(
        self,
        taken: Sequence[Redirect],
        *,
        background: bool,
        context: CommandContext,
        scope: Scope,
    ) -> None:
        for redirect in taken:
            heredoc = redirect.heredoc
            if heredoc is not None and not heredoc.quoted:
                self.walk_parts_commands(
                    heredoc.parts, background=background, context=context, scope=scope, heredoc=True
                )

    def heredoc(self, heredoc: Heredoc, scope: Scope) -> PlannedHeredoc:
        index = len(self.heredocs)
        self.heredocs.append(heredoc)
        holes = () if heredoc.quoted else self.heredoc_holes(heredoc, scope)
        self.holes.append(holes)
        return PlannedHeredoc(
            index=index,
            delimiter=heredoc.delimiter,
            literal=heredoc.quoted,
            strip_tabs=heredoc.operator == "<<-",
            body=self.value(heredoc.body_span.start, heredoc.body_span.end),
            body_offset=heredoc.body_span.start_byte,
            free_variables=self.names(heredoc_reads(heredoc)),
            holes=len(holes),
        )

    def heredoc_holes(self, heredoc: Heredoc, scope: Scope) -> tuple[Hole, ...]:
        """Each ``$( )`` of an unquoted body, with one plan per statement of it."""
        holes: list[Hole] = []
        for index, sub in enumerate(substitutions(heredoc.parts)):
            inner = Builder(self.source, self.run, self.depth, redact=self.redact)
            plans = [inner.statement(s, scope.copy()).plan for s in sub.body]
            holes.append(
                Hole(
                    index=index,
                    source=self.redactor.mask(sub.span.start, sub.span.end),
                    plans=tuple(plans),
                )
            )
        return tuple(holes)

    # ── redirects ──

    def redirect(self, redirect: Redirect, *, inherited: bool = False) -> PlannedRedirect:
        fd = redirect.fd or ""
        operator = redirect.operator
        target = redirect.target
        if redirect.heredoc is not None:
            assert target is not None  # noqa: S101 -- a heredoc redirect always has its delimiter word
            return PlannedRedirect(
                kind=fd + operator, target=self.word_text(target), inherited=inherited
            )
        if (
            operator in (">&", "<&")
            and target is not None
            and target.value is not None
            and (target.value.isdigit() or target.value == "-")
        ):
            return PlannedRedirect(
                kind=fd + operator + target.value, target=None, inherited=inherited
            )
        return PlannedRedirect(
            kind=fd + operator,
            target=None if target is None else self.word_text(target),
            inherited=inherited,
        )

    def redirect_effects(self, redirect: Redirect, sink: EffectSink) -> None:
        """What one redirect reads, writes or connects to (heredocs and here-strings: nothing)."""
        operator, target, fd = redirect.operator, redirect.target, redirect.fd
        if redirect.heredoc is not None or operator == "<<<" or target is None:
            return
        if fd is not None and fd.startswith("{"):
            # `{fd}>file`: bash binds the descriptor it opens to the variable.
            sink.bind(fd.strip("{}"), "redirect", "literal", frozenset({NUMBER}))
        if operator in (">&", "<&"):
            self.duplication(redirect, target, sink)
            return
        via = (fd or "") + operator
        for path in self.socket_or_paths(target, sink, via):
            if isinstance(path, Network):
                sink.add(path)
                continue
            if operator in ("<", "<>"):
                sink.add(Read(path=path, via=via))
            if operator in _WRITES:
                sink.add(Write(path=path, via=via, action=_WRITES[operator]))

    def duplication(self, redirect: Redirect, target: Word, sink: EffectSink) -> None:
        """
        ``>&WORD`` / ``N>&WORD``: a descriptor when WORD is digits or ``-``.

        Otherwise, for ``>&WORD`` and ``1>&WORD`` only, bash writes stdout and
        stderr to the file WORD — and expands WORD's value a second time
        (``>&'$(id)'`` runs ``id``); any other form is a redirection error.
        """
        fd = redirect.fd or ""
        via = fd + redirect.operator
        values = sink.values(target) if target.value is None else frozenset({target.value})
        if values is not None and all(v.isdigit() or v == "-" for v in values):
            return
        if redirect.operator != ">&" or fd not in ("", "1"):
            return  # `2>&file`, `<&file`: "ambiguous redirect", nothing is opened
        texts = sorted(values) if values is not None else None
        if texts is None:
            sink.add(
                Execute(
                    kind="expansion",
                    via=f"{via} expands its target again",
                    text=None,
                    origin="unknown",
                )
            )
            sink.add(Write(path=sink.located(None, self.written(target)), via=via, action="write"))
            return
        origin: Origin = "literal" if target.value is not None else "call_bound"
        for text in texts:
            if text.isdigit() or text == "-":
                continue
            if "$" in text or "`" in text:
                sink.add(
                    Execute(
                        kind="expansion",
                        via=f"{via} expands its target again",
                        text=self.scrub(text),
                        origin=origin,
                    )
                )
                sink.add(Write(path=sink.located(None, text), via=via, action="write"))
                continue
            if text == "~" or text.startswith("~/"):
                text = HOME + text[1:]
            for path in sink.paths_of(None, value=text, written=self.written(target)):
                sink.add(Write(path=path, via=via, action="write"))

    def socket_or_paths(
        self, target: Word, sink: EffectSink, via: str
    ) -> list[EffectPath | Network]:
        """The paths a redirect target names, or the socket a ``/dev/tcp/HOST/PORT`` opens."""
        values = sink.values(target)
        if values is not None:
            found: list[EffectPath | Network] = []
            for value in sorted(values):
                socket = _DEVICE_SOCKET.fullmatch(value)
                if socket is not None:
                    protocol, host, port = socket.groups()
                    found.append(
                        Network(
                            kind="connect",
                            via=f"/dev/{protocol}",
                            target=self.scrub(f"{host}:{port}"),
                            address=address_class(host),
                        )
                    )
                else:
                    found.extend(sink.paths_of(None, value=value, written=self.written(target)))
            return found
        return list(sink.paths_of(target))

    # ── simple commands ──

    def assignment_effects(self, assignment: Assignment, sink: EffectSink, *, prefix: bool) -> None:
        """A ``NAME=value``: what its value expands, then the binding."""
        if assignment.subscript is not None:
            self.expand((assignment.subscript,), sink, via=f"{assignment.name}[…]=")
        if assignment.value is not None:
            self.expand(assignment.value.parts, sink)
        for element in assignment.array or ():
            self.expand(element.parts, sink)
        origin: Origin
        values: frozenset[str] | None
        scope = sink.scope
        target = None if prefix else scope.namerefs.get(assignment.name)
        if not prefix and (
            scope.integer(assignment.name) or scope.referent(assignment.name) in scope.integers
        ):
            # An integer variable (or a nameref to one): bash evaluates the
            # value it is given, each element of an array, as arithmetic.
            via = f"integer {assignment.name}="
            for value in assignment.array or (assignment.value,):
                sink.numbers.value("" if value is None else value.value, value, via)
            sink.bind(assignment.name, "assignment", "literal", frozenset({NUMBER}))
            if target is not None:
                name = target.partition("[")[0] or None
                sink.bind(name, "assignment", "literal", frozenset({NUMBER}))
            return
        if assignment.array is not None:
            literal = all(e.value is not None for e in assignment.array)
            origin, values = ("literal" if literal else "unknown"), None
        else:
            origin, values = sink.origin(assignment.value)
        if assignment.append and values is not None:
            known = sink.scope.values(assignment.name)
            values = None if known is None else frozenset(a + b for a in known for b in values)
            origin = "call_bound" if values is not None else "unknown"
        # The value when the text shows one, else the value as written (`$(cat f)`).
        text = (
            sink.shown(values)
            if values is not None and len(values) == 1
            else None
            if assignment.value is None
            else self.written(assignment.value)
        )
        sink.bind(
            assignment.name,
            "prefix" if prefix else "assignment",
            origin,
            values,
            text=text,
            apply=not prefix,
        )
        if target is not None:
            sink.bind(target.partition("[")[0] or None, "assignment", origin, values, text=text)

    def walk_assignment_commands(
        self, assignment: Assignment, *, background: bool, context: CommandContext, scope: Scope
    ) -> None:
        if assignment.subscript is not None:
            self.walk_parts_commands(
                (assignment.subscript,), background=background, context=context, scope=scope
            )
        if assignment.value is not None:
            self.walk_parts_commands(
                assignment.value.parts, background=background, context=context, scope=scope
            )
        for element in assignment.array or ():
            self.walk_parts_commands(
                element.parts, background=background, context=context, scope=scope
            )

    def simple(
        self,
        command: SimpleCommand,
        *,
        background: bool,
        context: CommandContext,
        scope: Scope,
        inherited: tuple[PlannedRedirect, ...],
    ) -> None:
        words = command.words
        # Substitutions run first, in a subshell of this state: a copy of it,
        # made only when some word, assignment or redirect may hold one.
        starting = scope.directories
        walks = bool(command.assignments or command.redirects or self.pending)
        if not walks:
            for word in words:
                if word.value is None:
                    walks = True
                    break
        snapshot = scope.copy() if walks else scope
        if not words and not command.redirects and not self.pending:
            # A bare assignment runs nothing, but binds, and its value may hold substitutions.
            statement_sink = self.sink(scope)
            for assignment in command.assignments:
                self.assignment_effects(assignment, statement_sink, prefix=False)
            for assignment in command.assignments:
                self.walk_assignment_commands(
                    assignment, background=background, context=context, scope=snapshot
                )
            return
        taken, heredocs = self.take_heredocs(command.redirects, scope)
        redirects = (
            tuple([self.redirect(r) for r in command.redirects]) + inherited
            if command.redirects
            else inherited
        )
        kinds: set[str] = set()
        for word in words:
            if word.value is None:  # a word with a value expands nothing
                expansion_kinds(word.parts, kinds)
        for assignment in command.assignments:
            if assignment.value is not None:
                expansion_kinds(assignment.value.parts, kinds)
        for redirect in command.redirects:
            if redirect.target is not None and redirect.heredoc is None:
                expansion_kinds(redirect.target.parts, kinds)
        for redirect in taken:  # an unquoted heredoc body expands like a word
            if redirect.heredoc is not None and not redirect.heredoc.quoted:
                expansion_kinds(redirect.heredoc.parts, kinds)
        assigned = [a.name for a in command.assignments]
        first = words[0].value if words else None
        reading = (
            None if first is None else direct_position(first, words[0].text, assigned)
        ) or read_position(position_words(words), assigned)
        position = reading.position if words else ProgramPosition()
        found: list[Effect] = []
        sink = self.sink(scope, found)
        directories, runs, arguments = self.command_effects(
            command, reading, taken, sink, background=background
        )
        table = arguments is not None and arguments.table
        # A group's heredoc is taken by its first command (`taken`), redirects of its own or not.
        stdin = [*taken, *(r for r in command.redirects if r.operator == "<<<")]
        nested = self.nested(
            words, reading, runs, sink, scope, directories, table=table, stdin=stdin
        )
        self.startup_code(command, reading, sink)
        name = words[0].text if words else ""
        if self.redact and self.redactor:
            # The name, the position's sentences and the nested shells' reasons
            # quote words as plain strings, outside any PlannedValue: mask them too.
            scrub = self.scrub
            name = scrub(name)
            position = _scrub_position(position, scrub)
            nested = tuple(
                msgspec.structs.replace(
                    n, via=scrub(n.via), reason=None if n.reason is None else scrub(n.reason)
                )
                for n in nested
            )
        if self.redactor:
            args = tuple(self.word_text(word) for word in words[1:])
            argv = tuple(self.word_value(word) for word in words)
        else:  # no secret in the source: every value is its plain text
            text = self.source.text
            args = tuple([Plain(text[w.span.start : w.span.end]) for w in words[1:]])
            argv = tuple([None if word.value is None else Plain(word.value) for word in words])
        planned = PlannedCommand(
            name=name,
            args=args,
            argv=argv,
            assignments=tuple(
                [
                    PlannedAssignment(
                        name=a.name,
                        value=self.value(a.span.start, a.span.end)
                        if a.value is None
                        else self.word_text(a.value),
                    )
                    for a in command.assignments
                ]
            )
            if command.assignments
            else (),
            redirects=redirects,
            background=background,
            heredocs=heredocs,
            position=position,
            context=context,
            expansions=tuple(sorted(kinds)) if kinds else (),
            nested=nested,
            fed_by=self.fed_by,
            directories=tuple([sink.located(d, "") for d in (directories or starting)]),
            effects=tuple(found),
            subcommand=() if arguments is None else tuple(map(self.scrub, arguments.subcommand)),
            options=() if arguments is None else arguments.options,
        )
        self.commands.append(planned)
        if not walks:
            return  # every word is literal: nothing runs inside the command
        # Then what runs inside it, in source order: substitutions in its
        # assignments, words and redirect targets, then its heredoc bodies.
        for assignment in command.assignments:
            self.walk_assignment_commands(
                assignment, background=background, context=context, scope=snapshot
            )
        for word in words:
            if word.value is None:
                self.walk_parts_commands(
                    word.parts, background=background, context=context, scope=snapshot
                )
        for redirect in command.redirects:
            if redirect.target is not None and redirect.heredoc is None:
                self.walk_parts_commands(
                    redirect.target.parts, background=background, context=context, scope=snapshot
                )
        self.walk_heredoc_bodies(taken, background=background, context=context, scope=snapshot)

    def command_effects(
        self,
        command: SimpleCommand,
        reading: PositionReading,
        taken: Sequence[Redirect],
        sink: EffectSink,
        *,
        background: bool,
    ) -> tuple[tuple[str | None, ...] | None, list[ArgumentFact], ArgumentReading | None]:
        """
        Every effect of one simple command, in bash's order, into ``sink``.

        Returns:
            Where the program runs when a launcher moves it (else ``None``),
            the program's facts that run commands of its own (``find -exec``),
            and the reading of its arguments by its table or language reader
            (``None`` when they were not read so: a builtin, a shell, a function).
        """
        words = command.words
        for assignment in command.assignments:
            self.assignment_effects(assignment, sink, prefix=bool(words))
        for word in words:
            if word.value is None:
                self.expand(word.parts, sink)
        for redirect in command.redirects:
            if redirect.target is not None and redirect.heredoc is None:
                self.expand(redirect.target.parts, sink)
        for redirect in taken:
            if redirect.heredoc is not None and not redirect.heredoc.quoted:
                self.expand(redirect.heredoc.parts, sink)
        for redirect in command.redirects:
            self.redirect_effects(redirect, sink)
        directories: tuple[str | None, ...] | None = None
        runs: list[ArgumentFact] = []
        arguments: ArgumentReading | None = None
        if words:
            directories, runs, arguments = self.program_effects(command, reading, sink)
        if background:
            sink.add(Lifetime(kind="background", via=self.background_via))
        return directories, runs, arguments

    def program_effects(
        self, command: SimpleCommand, reading: PositionReading, sink: EffectSink
    ) -> tuple[tuple[str | None, ...] | None, list[ArgumentFact], ArgumentReading | None]:
        words = command.words
        position = reading.position
        if position.dynamic_program:
            sink.opaque("the program comes from an expansion and is only known when it runs")
        elif position.reason is not None and not position.runs_shell:
            sink.opaque(position.reason)
        directories = launcher_effects(reading, words, sink)
        program = position.program
        if program is None:
            if (
                position.runs_shell
                and reading.command_string is None
                and reading.shell_text_from is None
            ):
                launcher = position.launchers[-1].name if position.launchers else "a shell"
                sink.add(Execute(kind="shell_text", via=launcher, text=None, origin="unknown"))
            return directories, [], None
        if any(step.basename == "xargs" for step in position.launchers):
            sink.add(
                Execute(
                    kind="program", via="xargs", text=self.scrub(program.name), origin="literal"
                )
            )
        args = words[program.index + 1 :] if program.index is not None else ()
        base = program.basename
        functions = sink.scope.functions
        if program.index is not None and program.name in functions and not position.launchers:
            facts = functions[program.name]
            sink.add(
                Execute(
                    kind="program", via="function", text=self.scrub(program.name), origin="literal"
                )
            )
            if facts.moves:
                sink.scope.forget_directories()
            sink.scope.forget_variables(facts.binds)
            return directories, [], None
        argv = stand_ins(args, sink)
        endless = None if bounded(reading) else unending(base, argv)
        if endless is not None:
            sink.add(Lifetime(kind="unbounded", via=self.scrub(endless)))
        if "/" not in program.name and base in BASH_BUILTINS:
            # What `eval`, `source` and `.` run is planned as nested text, in this very shell.
            builtin_effects(base, args, sink)
            return directories, [], None
        if base == "env" and program.index is not None:
            # `env` named no program: its words were its own options, and it prints the environment.
            sink.add(ReadEnvironment(via="env"))
            return directories, [], None
        if base in SHELLS:
            return directories, [], None  # what a shell runs is its nested text
        if position.argv_from_stdin:
            argv.append(None)  # operands arrive on standard input
        one_word, no_dash = word_shapes(args, sink)
        arguments = self.run.read_arguments(base, argv, one_word=one_word, no_dash=no_dash)
        runs = program_effects(
            base,
            arguments,
            args,
            sink,
            directories=directories,
            bounded=bounded(reading),
            given=argv,
        )
        self.endless_reads(sink, base, argv)
        return directories, runs, arguments

    def endless_reads(self, sink: EffectSink, base: str, argv: Sequence[str | None]) -> None:
        """Reading a device (``/dev/zero``, ``/dev/tty``) may never end, unless the program stops by itself."""
        for effect in sink.found:
            path = effect.path.value if isinstance(effect, Read) and not effect.metadata else None
            if path is not None and not device_read_ends(base, argv, path):
                sink.add(Lifetime(kind="unbounded", via=f"reads {path}"))
                return  # at once: the loop must not go on over the list it grew

    # ── nested shell text ──

    def nested(
        self,
        words: Sequence[Word],
        reading: PositionReading,
        runs: Sequence[ArgumentFact],
        sink: EffectSink,
        scope: Scope,
        directories: tuple[str | None, ...] | None,
        *,
        table: bool,
        stdin: Sequence[Redirect] = (),
    ) -> tuple[NestedShell, ...]:
        requests = [
            self.fed_text(request, stdin) if request.origin == "stdin" else request
            for request in nested_requests(words, reading, table=table)
        ]
        program = reading.position.program
        offset = (program.index or 0) + 1 if program is not None else 0
        name = program.basename if program is not None else ""
        requests.extend(self.fact_request(fact, words, offset, name) for fact in runs)
        found: list[NestedShell] = []
        for request in requests:
            self.shell_options(request, sink)
            shell = self.nested_shell(request, scope, directories)
            found.append(shell)
            kind: ExecuteKind = "program" if request.words is not None else "shell_text"
            text = None if shell.text is None else shell.text.display
            sink.add(
                Execute(
                    kind=kind,
                    via=self.scrub(shell.via),
                    text=None if text is None else self.scrub(text),
                    origin="literal" if shell.status != "dynamic" else "unknown",
                )
            )
            if request.script is not None:
                sink.read(request.script, request.via)
            if request.runs_in == "same" and shell.status != "measured":
                scope.forget_directories()
                scope.forget_variables()
        base = program.basename if program is not None else None
        if base in ("source", "."):
            if program is not None and program.index is not None:
                for word in words[program.index + 1 : program.index + 2]:
                    sink.read(word, base)
            scope.forget_directories()
            scope.forget_variables()
        return tuple(found)

    def shell_options(self, request: NestedRequest, sink: EffectSink) -> None:
        """
        The options a shell is started with, judged as the same options set in its text.

        ``bash -k -c TEXT`` sets ``keyword`` as ``set -k`` does, ``bash -O
        cdable_vars`` as ``shopt -s cdable_vars``; an option that is neither
        (``bash -i``) is one whose effect the plan does not follow.
        """
        for option in request.options:
            if option.name is None:
                sink.opaque(
                    f"`{request.via.split()[0]} {option.shown}` starts the shell with an option "
                    "whose effect the plan does not follow"
                )
            else:
                sink.bind(option.name, option.via, "literal", text=option.state, apply=False)

    def startup_code(
        self, command: SimpleCommand, reading: PositionReading, sink: EffectSink
    ) -> None:
        """
        A program started with variables in its environment that make a shell run code no text shows.

        ``BASH_ENV=f bash -c ls`` sources ``f`` first; ``env 'BASH_FUNC_ls%%=()
        { id; }' bash -c ls`` runs ``id`` for ``ls``; ``SHELLOPTS=xtrace``
        expands a ``PS4`` from outside. Any other program may be a bash
        script or start one, which reads ``BASH_ENV``, ``SHELLOPTS``,
        ``BASHOPTS`` and ``PS4`` and imports functions too. The variables come from the command's prefix assignments, a
        launcher's (``env``, ``sudo``), or the call's own bindings before it
        (which the environment may already export).
        """
        position = reading.position
        program = position.program
        if program is not None and program.basename in SHELLS:
            via, names = f"{program.basename} at start", STARTUP_VARIABLES
        elif program is None and position.runs_shell and position.launchers:
            via, names = f"{position.launchers[-1].name} at start", STARTUP_VARIABLES
        elif program is not None and not (
            "/" not in program.name
            and (program.basename in BASH_BUILTINS or program.name in sink.scope.functions)
        ):
            via, names = f"a bash {program.basename} starts", _ANY_BASH_STARTUP
        else:
            return  # a builtin or a function: no program starts
        given: dict[str, tuple[str | None, Origin]] = {}
        for assignment in command.assignments:
            if assignment.value is None:
                given[assignment.name] = ("", "literal")
            else:
                origin, values = sink.origin(assignment.value)
                single = None if values is None or len(values) != 1 else next(iter(values))
                given[assignment.name] = (single, origin)
        for launcher in reading.launchers:
            if not LAUNCHERS[launcher.basename].assignment_operands:
                continue
            for index in launcher.operands:
                text = command.words[index].value if index < len(command.words) else None
                if text is not None and "=" in text:
                    variable, _, written = text.partition("=")
                    given[variable] = (written, "literal")
        scope = sink.scope
        for name in sorted(names - given.keys()):
            if scope.bound(name):
                values = scope.values(name)
                single = None if values is None or len(values) != 1 else next(iter(values))
                given[name] = (single, "unknown" if values is None else "call_bound")
        for name, (value, origin) in given.items():
            if not name.startswith(STARTUP_FUNCTION_PREFIX) and name not in names:
                continue
            code = None if name in _STARTUP_FILES_AND_OPTIONS else value
            sink.add(
                Execute(
                    kind="code",
                    via=f"{via} (${self.scrub(name)})",
                    text=None if code is None else self.scrub(code),
                    # A file's code, or a prompt from outside, is not the value.
                    origin="unknown" if name in _STARTUP_FILES_AND_OPTIONS else origin,
                )
            )

    def fed_text(self, request: NestedRequest, stdin: Sequence[Redirect]) -> NestedRequest:
        """
        A shell reading standard input from a heredoc or here-string: the text it reads.

        ``bash <<'EOF' … EOF`` and an unquoted body with nothing to expand read
        the body; ``sh <<< 'TEXT'`` reads TEXT and a newline. The last such
        redirect wins, as in bash; anything else is still unseen.
        """
        if not stdin:
            return request
        last = stdin[-1]
        text: str | None = None
        if last.heredoc is not None:
            heredoc = last.heredoc
            literal = heredoc.quoted or all(isinstance(p, Literal) for p in heredoc.parts)
            if literal:
                body = (
                    heredoc.body
                    if heredoc.quoted
                    else "".join(p.text for p in heredoc.parts if isinstance(p, Literal))
                )
                text = re.sub(r"(?m)^\t+", "", body) if heredoc.operator == "<<-" else body
            via = f"{request.via} {heredoc.operator}{heredoc.delimiter_text}"
        else:
            target = last.target
            text = None if target is None or target.value is None else target.value + "\n"
            via = f"{request.via} <<<"
        if text is None:
            return request._replace(
                via=via,
                reason=f"the text `{via}` reads is built at run time and is only known when it runs",
                origin="expansion",
            )
        return request._replace(via=via, text=text, reason=None, origin="literal")

    def fact_request(
        self, fact: ArgumentFact, words: Sequence[Word], offset: int, program: str
    ) -> NestedRequest:
        """A program fact that runs a command (``find -exec``) or shell text, as a request."""
        via = fact_via(program, fact)
        if fact.words is not None and fact.action == "shell_text":
            # `ssh HOST CMD ARGS`: the remote shell reads the words joined by spaces.
            start, end = fact.words
            text = join_values(words[offset + start : offset + end])
            return NestedRequest(
                via=via,
                text=text,
                reason=None
                if text is not None
                else f"the text `{via}` runs comes from an expansion",
                origin="literal" if text is not None else "expansion",
                runs_in="remote" if program == "ssh" else "child",
            )
        if fact.words is not None:
            start, end = fact.words
            run = tuple(words[offset + start : offset + end])
            inside = filled_inside(via, run) if program == "find" else None
            if inside is not None:
                return inside
            return NestedRequest(
                via=via,
                words=run,
                # `-execdir` runs in each found file's directory: one the text does not show.
                runs_in="elsewhere" if fact.via in ("-execdir", "-okdir") else "child",
                placeholders=frozenset(w.span.start for w in run if "{}" in (w.value or "")),
            )
        if fact.value is None:
            return NestedRequest(
                via=via,
                reason=f"the text `{via}` runs comes from an expansion and is only known when it runs",
                origin="expansion",
            )
        return NestedRequest(via=via, text=fact.value)

    def nested_shell(
        self,
        request: NestedRequest,
        scope: Scope,
        directories: tuple[str | None, ...] | None,
    ) -> NestedShell:
        if request.words is not None:
            return self.nested_words(request, scope, directories)
        if request.text is None:
            return NestedShell(
                via=request.via,
                text=None,
                status="dynamic" if request.origin != "literal" else "unmeasured",
                reason=request.reason,
                plans=(),
                origin=request.origin,
            )
        text = request.text
        if self.depth >= MAX_NESTED_SHELL_DEPTH:
            return NestedShell(
                via=request.via,
                text=self.derived(text),
                status="unmeasured",
                reason=f"Shell text nests deeper than {MAX_NESTED_SHELL_DEPTH} levels.",
                plans=(),
            )
        reading = self.run.reading(text)
        if reading.program is None:
            return NestedShell(
                via=request.via,
                text=self.derived(text),
                status="unmeasured",
                reason=self.run_reason(reading, text),
                plans=(),
            )
        differs = dash_differs(reading.program, text) if reads_as_dash(request.via) else None
        if differs is not None:
            return NestedShell(
                via=request.via,
                text=self.derived(text),
                status="unmeasured",
                reason=f"`{request.via}` runs the text with the system's sh (dash), "
                f"which reads {differs} otherwise than bash.",
                plans=(),
            )
        inner_scope = _runs_in(request, scope, directories)
        inner = Builder(Source(text), self.run, self.depth + 1, redact=self.redact)
        plans = tuple(inner.statement(s, inner_scope).plan for s in reading.program.statements)
        return NestedShell(
            via=request.via, text=self.derived(text), status="measured", reason=None, plans=plans
        )

    def run_reason(self, reading: ShellReading, text: str) -> str | None:
        reason = reading.reason or "The text could not be read."
        if self.redact and self.run.secrets(text):
            return Redactor(text, self.run.secrets(text)).scrub(reason)
        return reason

    def nested_words(
        self,
        request: NestedRequest,
        scope: Scope,
        directories: tuple[str | None, ...] | None,
    ) -> NestedShell:
        """A command made of this command's own words (``find -exec rm {} ;``), planned from them."""
        words = request.words or ()
        start, end = words[0].span, words[-1].span
        command = SimpleCommand(span=start, redirects=(), assignments=(), words=words)
        inner = Builder(self.source, self.run, self.depth, redact=self.redact)
        inner_scope = _runs_in(request, scope, directories)
        inner.placeholders = request.placeholders
        inner.walk_command(
            command, background=False, context="command", scope=inner_scope, inherited=()
        )
        text = (
            self.redactor.mask(start.start, end.end)
            if self.redact
            else self.source.text[start.start : end.end]
        )
        plan = Plan(
            rendered=_truncate(text),
            statement_kind="command",
            commands=tuple(inner.commands),
            free_variables=(),
            bound_variables=(),
            effects=tuple(inner.effects),
        )
        return NestedShell(
            via=request.via,
            text=self.derived(self.source.text[start.start : end.end]),
            status="measured",
            reason=None,
            plans=(plan,),
        )


_ANY_BASH_STARTUP: Final = frozenset({"BASH_ENV", "SHELLOPTS", "BASHOPTS", "PS4"})
"""
What any bash a program starts (it may be a bash script) reads at start,
besides imported functions: not the prompts and ``ENV`` of an interactive shell.
"""
_STARTUP_FILES_AND_OPTIONS: Final = frozenset({"BASH_ENV", "ENV", "SHELLOPTS", "BASHOPTS"})
"""Startup variables whose code is not their value: a file's, or a prompt's from outside."""


def _runs_in(
    request: NestedRequest, scope: Scope, directories: tuple[str | None, ...] | None
) -> Scope:
    """The scope nested commands start in (see `RunsIn`)."""
    if request.runs_in == "same":
        return scope
    where = directories if directories is not None else scope.directories
    fresh = Scope(None)
    fresh.globbing = request.globbing
    fresh.physical = scope.physical  # a child shell starts from the `$PWD` it is given
    if request.runs_in in ("child", "later"):
        fresh.directories = where if request.runs_in == "child" else (None,)
    return fresh


def _may_fail_unchanged(pipeline: Pipeline) -> bool:
    """A lone ``cd``/``pushd``/``popd``: when it fails, the directory stays as it was."""
    if len(pipeline.commands) != 1 or pipeline.negated:
        return False
    only = pipeline.commands[0]
    if not isinstance(only, SimpleCommand) or not only.words:
        return False
    first = only.words[0].value
    return first in CHANGES_DIRECTORY


class _Compound:
    """Walks the statements a compound command holds, merging the scopes of its branches."""

    def __init__(
        self,
        builder: Builder,
        *,
        background: bool,
        context: CommandContext,
        inherited: tuple[PlannedRedirect, ...],
    ) -> None:
        self.builder = builder
        self.background = background
        self.context = context
        self.inherited = inherited

    def block(self, statements: Sequence[Statement], scope: Scope) -> None:
        self.builder.walk_statements(
            statements,
            background=self.background,
            context=self.context,
            scope=scope,
            inherited=self.inherited,
        )

    def words(self, words: Sequence[Word], scope: Scope) -> None:
        sink = self.builder.sink(scope)
        for word in words:
            self.builder.expand(word.parts, sink)
            self.builder.walk_parts_commands(
                word.parts, background=self.background, context=self.context, scope=scope
            )

    def loop(self, scope: Scope, body: Callable[[Scope], None]) -> None:
        """
        A body bash may run any number of times, walked until the scope it starts in settles.

        The body's commands are those of the last walk, from the settled
        state; a variable or directory still changing after two walks is
        widened to unknown first.
        """
        builder = self.builder
        entry = scope.copy()
        marks = (len(builder.commands), len(builder.effects), len(builder.heredocs))
        pending = list(builder.pending)  # a compound's heredocs go to the body's first command
        state = entry
        for attempt in range(3):
            if attempt:  # walk again from the merged state; only the last walk's commands stay
                del builder.commands[marks[0] :]
                del builder.effects[marks[1] :]
                del builder.heredocs[marks[2] :]
                del builder.holes[marks[2] :]
                builder.pending = list(pending)
            trial = state.copy()
            body(trial)
            merged = Scope.union([entry, trial])
            if merged.same_as(state):
                scope.replace(merged)
                return
            if attempt == 1:
                merged.forget_variables(
                    name
                    for name in merged.variables
                    if merged.variables[name] != state.variables.get(name)
                )
                if merged.directories != state.directories:
                    merged.forget_directories()
            state = merged
        scope.replace(state)  # pragma: no cover - the widened state always settles

    def command(self, command: Command, scope: Scope) -> None:
        builder = self.builder
        if isinstance(command, Subshell):
            self.block(command.body, scope.copy())
        elif isinstance(command, Group):
            self.block(command.body, scope)
        elif isinstance(command, If):
            ends: list[Scope] = []
            for clause in command.clauses:
                self.block(clause.condition, scope)
                taken = scope.copy()
                self.block(clause.body, taken)
                ends.append(taken)
            if command.else_body is not None:
                otherwise = scope.copy()
                self.block(command.else_body, otherwise)
                ends.append(otherwise)
            else:
                ends.append(scope.copy())
            scope.replace(Scope.union(ends))
        elif isinstance(command, For):
            self.words(command.items or (), scope)
            values = self.items(command.items, scope)
            literal = command.items is not None and all(w.value is not None for w in command.items)
            origin: Origin = "unknown" if values is None else "literal" if literal else "call_bound"
            if command.select:
                # `select`: the word a line of standard input chose, or the
                # empty string when it chose none; the line itself in REPLY.
                values = None if values is None else values | {""}
                builder.sink(scope).bind("REPLY", "select", "unknown")
                builder.sink(scope).bind(command.variable, "select", origin, values)
                builder.effects.append(Lifetime(kind="loop", via="select"))
            else:
                builder.sink(scope).bind(command.variable, "for", origin, values)
                builder.effects.append(Lifetime(kind="loop", via="for"))
            self.loop(scope, lambda inner: self.block(command.body, inner))
        elif isinstance(command, ArithFor):
            init, *rest = command.expressions or (None,)
            if init is not None:
                self.arithmetic(init, scope, "for (( ))")
            endless = len(command.expressions) < 2 or not command.expressions[1].expression.strip()
            builder.effects.append(
                Lifetime(kind="unbounded" if endless else "loop", via="for (( ))")
            )

            def body(inner: Scope) -> None:
                for expression in rest[:1]:
                    self.arithmetic(expression, inner, "for (( ))")
                self.block(command.body, inner)
                for expression in rest[1:]:
                    self.arithmetic(expression, inner, "for (( ))")

            self.loop(scope, body)
        elif isinstance(command, While):
            endless = _always(command.condition, truth=not command.until)
            via = "until" if command.until else "while"
            builder.effects.append(Lifetime(kind="unbounded" if endless else "loop", via=via))

            def body(inner: Scope) -> None:  # the condition runs once more than the body
                self.block(command.condition, inner)
                self.block(command.body, inner)

            self.loop(scope, body)
        elif isinstance(command, Case):
            self.words((command.subject,), scope)
            ends = []
            for arm in command.items:
                self.words(arm.patterns, scope)
                taken = scope.copy()
                self.block(arm.body, taken)
                ends.append(taken)
            ends.append(scope.copy())
            scope.replace(Scope.union(ends))
        elif isinstance(command, Function):
            self.function(command, scope)
        elif isinstance(command, Coproc):
            self.coprocess(command, scope)
        elif isinstance(command, ArithCommand):
            self.arithmetic(command.expression, scope, "(( ))")
        elif isinstance(command, Test):
            self.test(command, scope)

    def arithmetic(self, part: Arithmetic, scope: Scope, via: str) -> None:
        builder = self.builder
        builder.expand((part,), builder.sink(scope), via=via)
        builder.walk_parts_commands(
            (part,), background=self.background, context=self.context, scope=scope
        )

    def test(self, command: Test, scope: Scope) -> None:
        """``[[ … ]]``: its words expand; the operands of ``-eq``… and ``-v`` are evaluated as numbers."""
        builder = self.builder
        sink = builder.sink(scope)
        operands = command.operands
        for index, operand in enumerate(operands):
            builder.expand(operand.parts, sink)
            around = {w.value for w in operands[max(index - 1, 0) : index + 2] if w is not operand}
            if around & ARITHMETIC_OPERATORS and operand.value not in ARITHMETIC_OPERATORS:
                sink.numbers.word(operand, "[[ ]]")
            elif index and operands[index - 1].value == "-v":
                sink.numbers.word(operand, "[[ -v ]]")
        for operand in operands:
            builder.walk_parts_commands(
                operand.parts, background=self.background, context=self.context, scope=scope
            )

    def items(self, items: Sequence[Word] | None, scope: Scope) -> frozenset[str] | None:
        """The values a ``for`` variable takes, when every item is known (``None``: unknown)."""
        if items is None:
            return None  # `for x; do`: the positional parameters
        values: set[str] = set()
        for word in items:
            found = self.builder.sink(scope).values(word)
            if found is None:
                return None
            values |= found
        return frozenset(values)

    def coprocess(self, command: Coproc, scope: Scope) -> None:
        """
        ``coproc [NAME] COMMAND``: the body runs in the background, in a subshell; NAME and NAME_PID are bound.

        bash binds the array ``NAME`` (the two pipe descriptors) and
        ``NAME_PID`` in the shell running the statement, and unsets both once
        the coprocess has ended, so their values are not known; through a
        nameref ``NAME``, it binds the variable it names and that name's
        ``_PID``. What the body binds stays in its subshell.
        """
        builder = self.builder
        builder.effects.append(Lifetime(kind="background", via="coproc"))
        outer = builder.background_via
        if not self.background:
            builder.background_via = "coproc"
        try:
            builder.walk_command(
                command.body,
                background=True,
                context=self.context,
                scope=scope.copy(),
                inherited=self.inherited,
            )
        finally:
            builder.background_via = outer
        sink = builder.sink(scope)
        target = scope.namerefs.get(command.name, command.name)
        name = target if NAME.fullmatch(target) else None
        # Descriptors and a process id while it runs; unset once it has ended.
        sink.bind(name, "coproc", "unknown")
        sink.bind(None if name is None else name + "_PID", "coproc", "unknown")

    def function(self, command: Function, scope: Scope) -> None:
        """A definition runs nothing; its body runs where it is called, in a state not known here."""
        builder = self.builder
        builder.sink(scope).bind(command.name, "function", "literal", apply=False)
        body_scope = Scope(None)
        body_scope.variables = dict.fromkeys(scope.variables)  # bound, to values not known here
        body_scope.functions = dict(scope.functions)
        first, effects_mark = len(builder.commands), len(builder.effects)
        builder.walk_command(
            command.body,
            background=self.background,
            context="function",
            scope=body_scope,
            inherited=self.inherited,
        )
        body = builder.commands[first:]
        programs = {c.position.program.basename for c in body if c.position.program is not None}
        moves = bool(programs & {*CHANGES_DIRECTORY, "eval", "source", "."})
        bound = [e for c in body for e in c.effects if isinstance(e, Bind)]
        bound += [e for e in builder.effects[effects_mark:] if isinstance(e, Bind)]
        hidden = bool(programs & {"eval", "source", "."}) or any(e.name is None for e in bound)
        binds = None if hidden else frozenset(e.name for e in bound if e.name is not None)
        if any(
            c.position.program is not None and c.position.program.basename == command.name
            for c in body
        ):
            builder.effects.append(Lifetime(kind="unbounded", via=f"{command.name} calls itself"))
        scope.functions = {**scope.functions, command.name: FunctionFacts(moves, binds)}
        # Attributes its body gives (`declare -gi x`, `declare -gn r=$1`) may
        # hold once it has been called: from here on, as if it had been.
        scope.integers = scope.integers | body_scope.integers
        for name in body_scope.namerefs:
            scope.namerefs[name] = ""


def _always(condition: Sequence[Statement], *, truth: bool) -> bool:
    """``while :``/``while true``/``until false``: a condition that never changes."""
    if len(condition) != 1:
        return False
    andor = condition[0].body
    if len(andor.pipelines) != 1 or len(andor.pipelines[0].commands) != 1:
        return False
    only = andor.pipelines[0].commands[0]
    if not isinstance(only, SimpleCommand) or len(only.words) != 1 or only.assignments:
        return False
    word = only.words[0].value
    return word in ((":", "true") if truth else ("false",))


def _scrub_position(position: ProgramPosition, scrub: Callable[[str], str]) -> ProgramPosition:
    """The position with ``scrub`` applied to every string quoted from the command's words."""
    program = position.program
    refusal = position.refusal
    return msgspec.structs.replace(
        position,
        launchers=tuple(
            msgspec.structs.replace(step, name=scrub(step.name), basename=scrub(step.basename))
            for step in position.launchers
        ),
        program=None
        if program is None
        else msgspec.structs.replace(
            program, name=scrub(program.name), basename=scrub(program.basename)
        ),
        refusal=None
        if refusal is None
        else msgspec.structs.replace(
            refusal,
            owner=scrub(refusal.owner),
            option=None if refusal.option is None else scrub(refusal.option),
            word=None if refusal.word is None else scrub(refusal.word),
            sentence=scrub(refusal.sentence),
        ),
        reason=None if position.reason is None else scrub(position.reason),
    )
