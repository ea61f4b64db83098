"""
The plan vocabulary: what a shell call would do, as data, before anything runs.

Pure data: frozen msgspec Structs, tuples for collections, no I/O, nothing but
msgspec and the standard library. ``msgspec.json.encode`` of any of these
types is its wire format, and decoding it back gives an equal value; the same
holds for MessagePack.

Two unions have an *externally tagged* wire form — ``{"plain": …}`` /
``{"redacted": {…}}`` and ``{"complete": …}`` / ``{"blocked": {…}}`` — which
msgspec spells as one Struct with exactly one field set (`PlannedValue`,
`Expansion`); the constructors `Plain`, `Redacted`, `Complete` and `Blocked`
build them, and ``__post_init__`` rejects a value with both or neither set.
"""

from __future__ import annotations

from typing import Final, Literal

import msgspec

from gateway._calls._effects import Effect, EffectPath
from gateway._calls._errors import GatewayError

__all__ = [
    "PLAN_RENDER_LIMIT",
    "Blocked",
    "Complete",
    "Expansion",
    "FragmentAddr",
    "FragmentError",
    "FragmentErrorKind",
    "Hole",
    "LauncherStep",
    "NestedShell",
    "Plain",
    "Plan",
    "PlannedAssignment",
    "PlannedCommand",
    "PlannedHeredoc",
    "PlannedRedirect",
    "PlannedValue",
    "PositionDecline",
    "PositionRefusal",
    "ProgramName",
    "ProgramPlan",
    "ProgramPosition",
    "Redacted",
    "Redaction",
    "SequencePlan",
    "SequenceStep",
    "StatementKind",
    "StatementPlan",
]

PLAN_RENDER_LIMIT: Final = 8 * 1024
"""`Plan.rendered` is cut at this many bytes (inclusive), with a marker naming the limit."""

StatementKind = Literal[
    "command",
    "env_scoped",
    "assignment",
    "pipeline",
    "and_chain",
    "or_chain",
    "list",
    "subshell",
    "group",
    "if",
    "for",
    "while",
    "until",
    "case",
    "function",
    "test",
    "arith",
]
"""
The closed set of statement kinds.

Shape rules: a lone simple command is ``command`` (``env_scoped`` when it has
leading assignments, ``assignment`` when it is only assignments); a lone
compound command is its own kind (``for ((…))`` is ``for``). A lone unit with
a redirect, a ``!`` or a ``&``, and a ``coproc`` (a job in the background, as
with ``&``), is a one-stage ``pipeline``, as is any real pipeline. Several pipelines joined only by ``&&`` are ``and_chain``, only by
``||`` ``or_chain``, by both ``list``.
"""


# ───────────────────────── values ─────────────────────────


class Redaction(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """
    What is published in place of a secret.

    Attributes:
        kind: The kind of secret (``password``, ``bearer-token``, ``aws-access-key``…).
        fingerprint: A short, slow-hashed fingerprint of the secret: equal
            secrets have equal fingerprints, and the value cannot be read back.
        masked: The surrounding text with each secret replaced by ``<kind>``,
            when there is more to it than the secret (a heredoc body, ``--password=…``).
    """

    kind: str
    fingerprint: str
    masked: str | None = None


class PlannedValue(
    msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True, forbid_unknown_fields=True
):
    """
    One value of a plan: plain text, or a redacted secret. Exactly one field is set.

    Built with `Plain` or `Redacted`. On the wire: ``{"plain": "build"}`` or
    ``{"redacted": {"kind": "password", "fingerprint": "…"}}``.
    """

    plain: str | None = None
    redacted: Redaction | None = None

    def __post_init__(self) -> None:
        if (self.plain is None) == (self.redacted is None):
            raise ValueError("A planned value is exactly one of plain or redacted.")

    @property
    def display(self) -> str:
        """The text to show: the plain text, or the masked text / ``<kind>`` of a redaction."""
        if self.plain is not None:
            return self.plain
        assert self.redacted is not None  # noqa: S101 -- guaranteed by __post_init__
        return (
            self.redacted.masked if self.redacted.masked is not None else f"<{self.redacted.kind}>"
        )


def Plain(text: str) -> PlannedValue:
    """Build a plain `PlannedValue`."""
    return PlannedValue(plain=text)


def Redacted(kind: str, fingerprint: str, masked: str | None = None) -> PlannedValue:
    """Build a redacted `PlannedValue`."""
    return PlannedValue(redacted=Redaction(kind=kind, fingerprint=fingerprint, masked=masked))


# ───────────────────────── program position ─────────────────────────


class LauncherStep(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """One launcher in front of the program (``env``, ``sudo``, ``timeout``…)."""

    index: int
    name: str
    basename: str


class ProgramName(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """
    The program bash really runs.

    Attributes:
        index: Its word index in the command (``None`` for a launcher's default
            program, such as the ``echo`` a bare ``xargs`` runs).
        name: The word as written, after quote removal (``/usr/bin/cat``).
        basename: What bash resolves it as (``cat``).
    """

    index: int | None
    name: str
    basename: str


PositionRefusalKind = Literal["option_at_program_position", "control_syntax_at_program_position"]
PositionDecline = Literal["unreadable_program_position", "stream_fed_operands"]


class PositionRefusal(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """
    Why the program position could not be read as a plain program.

    Attributes:
        kind: ``option_at_program_position`` (a launcher option no table row
            declares) or ``control_syntax_at_program_position`` (shell syntax
            where the program should be).
        owner: The word that took the offending token (a control word or the
            first launcher of the chain).
        option: The offending option, for ``option_at_program_position``.
        word: The offending word, for ``control_syntax_at_program_position``.
        runs_shell: A shell stands at the program position (``sh -c``,
            ``watch "…"``): it names what runs, so it is not a decline.
        sentence: The refusal as one sentence, minted in one place.
    """

    kind: PositionRefusalKind
    owner: str
    option: str | None = None
    word: str | None = None
    runs_shell: bool = False
    sentence: str


class ProgramPosition(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """
    Which word of a simple command names the program bash really runs, and what stands in front.

    Attributes:
        control_words: Bare control words stripped in front (``!``, ``time``, ``if``…).
        assignments: Names of the leading ``NAME=value`` assignments.
        launchers: The launcher chain, in order.
        program: The program that runs, or ``None`` when none can be read.
        argv_from_stdin: A launcher in the chain turns standard input into
            operands (``xargs``): the program's arguments are not in the text.
        runs_default_program: The chain ends on such a launcher, which then runs
            its default program.
        runs_shell: A shell runs the text (``sh -c``, ``watch``, ``su``, ``sudo -s``).
        refusal: Why the program is not readable as a plain program, if it is not.
        decline: ``unreadable_program_position`` or ``stream_fed_operands`` when
            the reader cannot judge and nobody may auto-allow; else ``None``.
        reason: The refusal's or decline's sentence.
        dynamic_program: The word where the program (or a launcher) should be
            is an expansion (``$CMD``, ``$(…)``): the program is only known when it runs.
    """

    control_words: tuple[str, ...] = ()
    assignments: tuple[str, ...] = ()
    launchers: tuple[LauncherStep, ...] = ()
    program: ProgramName | None = None
    argv_from_stdin: bool = False
    runs_default_program: bool = False
    runs_shell: bool = False
    refusal: PositionRefusal | None = None
    decline: PositionDecline | None = None
    reason: str | None = None
    dynamic_program: bool = False


# ───────────────────────── plans ─────────────────────────


class PlannedRedirect(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """
    One redirection of a planned command.

    Attributes:
        kind: The operator as written, with its descriptor (``>``, ``2>``,
            ``>>``, ``<``, ``<<``, ``<<-``, ``<<<``, ``&>``, ``2>&1``, ``>&-``).
            Descriptor duplications and closes spell their whole text and have
            no target.
        target: The target, unexpanded (the delimiter as written for heredocs).
        inherited: The redirect is written on an enclosing compound command
            (``{ a; b; } > out``) and applies to this command through it.
    """

    kind: str
    target: PlannedValue | None
    inherited: bool = False


class PlannedHeredoc(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """
    One here-document a command reads on standard input.

    Attributes:
        index: Its position among all heredocs of the statement, in the same
            walk order as `Plan.commands` (the ``heredoc`` half of a `FragmentAddr`).
        delimiter: The delimiter with quotes removed.
        literal: The delimiter had quoting: the body is exactly what the command reads.
        strip_tabs: The ``<<-`` form: leading tabs come off each body line.
        body: The body as written (tabs, CRLF and backslashes kept, nothing expanded).
        body_offset: The UTF-8 byte offset of the body in the planned source.
        free_variables: Variables the body reads (always empty when literal).
        holes: How many ``$( )`` / backtick substitutions the (unquoted) body holds.
    """

    index: int
    delimiter: str
    literal: bool
    strip_tabs: bool
    body: PlannedValue
    body_offset: int
    free_variables: tuple[str, ...]
    holes: int = 0


class PlannedAssignment(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A leading ``NAME=value`` of a command (it sets the variable for that command only)."""

    name: str
    value: PlannedValue


NestedOrigin = Literal["literal", "expansion", "file", "stdin", "remote"]


class NestedShell(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """
    Commands a command launches from its own arguments: shell text or an argv.

    Attributes:
        via: How they are launched (``sh -c``, ``env -S``, ``watch``, ``ssh``,
            ``find -exec``, ``eval``…).
        text: The text that runs, when it is a literal (``None`` when dynamic).
        status: ``measured`` (planned below), ``unmeasured`` (the text could not
            be read or nests too deep) or ``dynamic`` (not a literal: unknowable).
        reason: Why it is not measured.
        plans: One plan per statement of the text.
        origin: Where the text comes from: ``literal`` (written in the call),
            ``expansion`` (built at run time from a variable or substitution),
            ``file`` (a script), ``stdin`` (standard input: a pipe or a
            person), or ``remote`` (an interactive remote shell).
    """

    via: str
    text: PlannedValue | None
    status: Literal["measured", "unmeasured", "dynamic"]
    reason: str | None
    plans: tuple[Plan, ...]
    origin: NestedOrigin = "literal"


CommandContext = Literal["command", "substitution", "process_substitution", "heredoc", "function"]


class PlannedCommand(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """
    One simple command a statement would run.

    Attributes:
        name: The command word as written, quotes removed when it is literal
            (never resolved through ``PATH`` or aliases; empty when the command
            has no words, such as a bare ``> file``).
        args: The arguments as written (quotes kept), unexpanded.
        argv: Every word's value after quote removal, the command word first
            (``argv[0]``); ``None`` for a word that expands, so rules can match
            ``git "push" --force`` and never mistake ``"$x"`` for ``$x``.
        assignments: Leading assignments that apply to this command.
        redirects: Its redirections, including those inherited from an
            enclosing compound command.
        background: It runs in the background (an enclosing ``&``).
        heredocs: The heredocs it reads.
        position: Which program really runs (launchers, control words…).
        context: Where it sits: a statement (``command``), a substitution in a
            word, a process substitution, a ``$( )`` in an unquoted heredoc body
            (``heredoc``), or a function body (runs only if called).
        expansions: The kinds of expansion in its words (``parameter``,
            ``command_substitution``, ``arithmetic``, ``glob``, ``tilde``,
            ``brace``, ``process_substitution``, ``indirect``, ``transform``…).
        nested: What it launches from its arguments (``sh -c '…'``, ``find -exec``).
        fed_by: The programs of the earlier stages of its pipeline (their
            basenames, in order): what its standard input comes from.
        directories: Where it runs: the effective working directory (the
            call's, then every ``cd`` before it, or what a launcher names:
            ``env -C``), one entry per candidate when bash may be in one of
            several, ``unknown`` when the text does not show it.
        effects: What it does, in bash's order (see `gateway._calls._effects`):
            what its words expand (number sites, ``${V:=…}``), its
            assignments, its redirects, its launchers and its program. A
            command whose effects cannot all be stated has an ``opaque`` one.
        subcommand: The subcommand path its option table read (``("remote",
            "add")`` for ``git remote add``); empty when it has none or its
            arguments were not read by a table.
        options: The declared options present, in their canonical spelling
            and in order (``git push -fu`` has ``--force`` and
            ``--set-upstream``), as its option table or language reader read
            them: abbreviations, clusters and fused values are already
            resolved, so a policy matches options here and never in `argv`.
    """

    name: str
    args: tuple[PlannedValue, ...]
    argv: tuple[PlannedValue | None, ...] = ()
    assignments: tuple[PlannedAssignment, ...] = ()
    redirects: tuple[PlannedRedirect, ...] = ()
    background: bool = False
    heredocs: tuple[PlannedHeredoc, ...] = ()
    position: ProgramPosition = ProgramPosition()
    context: CommandContext = "command"
    expansions: tuple[str, ...] = ()
    nested: tuple[NestedShell, ...] = ()
    fed_by: tuple[str, ...] = ()
    directories: tuple[EffectPath, ...] = ()
    effects: tuple[Effect, ...] = ()
    subcommand: tuple[str, ...] = ()
    options: tuple[str, ...] = ()


class Plan(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """
    What one top-level statement would run, built before anything runs.

    Attributes:
        rendered: The statement's source text, unexpanded, exactly as written
            (secrets masked), cut at `PLAN_RENDER_LIMIT` bytes with a marker.
            For display only: never match on it (the plan's other fields say
            everything the text does, and are never cut).
        statement_kind: One of `StatementKind`.
        commands: Every simple command it would run, in walk order: pipeline
            stages left to right, conditions and bodies, then the commands in
            each command's substitutions and unquoted heredoc bodies. Never cut.
        free_variables: Variables it reads and does not bind itself (sorted).
        bound_variables: Variables it binds lexically (sorted); a name both
            read and bound is bound only.
        arithmetic_variables: Free variables it reads in arithmetic (``$((x))``,
            ``[[ $x -eq 1 ]]``, subscripts): bash evaluates their values as
            expressions, which can hold a subscript that runs a command.
        functions: Names of the shell functions it defines (a later word with
            such a name calls the function, not a program).
        effects: What the statement's own syntax does, beyond its simple
            commands: bare assignments, ``(( ))``, ``[[ ]]``, loops,
            function definitions and the redirects of compound commands.
    """

    rendered: str
    statement_kind: StatementKind
    commands: tuple[PlannedCommand, ...]
    free_variables: tuple[str, ...]
    bound_variables: tuple[str, ...]
    arithmetic_variables: tuple[str, ...] = ()
    functions: tuple[str, ...] = ()
    effects: tuple[Effect, ...] = ()


class StatementPlan(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """One statement of a `ProgramPlan`: its index, plan and digest."""

    index: int
    plan: Plan
    digest: str


class ProgramPlan(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """
    What a whole shell call would do.

    Attributes:
        source: The call's text (secrets masked).
        status: ``measured`` or ``unmeasured``.
        reason: One sentence when unmeasured, else ``None``.
        statements: The statements in order; empty when unmeasured (never a partial plan).
        digest: ``sha256:<hex>`` over the canonical encoding of the unredacted plan.
        display_hazard: What in the call's text can make a person see
            something other than what runs (a carriage return, a
            bidirectional override, a long run of blanks…), as a clause;
            ``None`` when nothing. Computed by the planner from the
            unredacted text, which the digest binds, so the digest covers it.
    """

    source: str
    status: Literal["measured", "unmeasured"]
    reason: str | None
    statements: tuple[StatementPlan, ...]
    digest: str
    display_hazard: str | None


# ───────────────────────── fragments ─────────────────────────


class FragmentAddr(
    msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, order=True
):
    """One heredoc of a planned program: which statement, which heredoc within it (flat index)."""

    statement: int
    heredoc: int


class Hole(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """
    One ``$( )`` (or backtick) in an unquoted heredoc body: a question that must be answered first.

    Attributes:
        index: Its flat index among the body's holes, in source order (the key of an answer).
        source: The substitution as written (``$(date +%s)``).
        plans: One plan per statement of its body.
    """

    index: int
    source: str
    plans: tuple[Plan, ...]


class BlockedBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Why a fragment has no text yet: unanswered holes and unsupplied variables."""

    holes: tuple[Hole, ...]
    unbound: tuple[str, ...]


class Expansion(
    msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True, forbid_unknown_fields=True
):
    """
    What expanding a fragment gave: exactly one of ``complete`` (the text) or ``blocked``.

    There is no third outcome and no half-expanded text. Built with `Complete`
    or `Blocked`; on the wire ``{"complete": "…"}`` or ``{"blocked": {"holes": […], "unbound": […]}}``.
    """

    complete: str | None = None
    blocked: BlockedBody | None = None

    def __post_init__(self) -> None:
        if (self.complete is None) == (self.blocked is None):
            raise ValueError("An expansion is exactly one of complete or blocked.")


def Complete(text: str) -> Expansion:
    """Build a complete `Expansion`."""
    return Expansion(complete=text)


def Blocked(holes: tuple[Hole, ...] = (), unbound: tuple[str, ...] = ()) -> Expansion:
    """Build a blocked `Expansion`."""
    return Expansion(blocked=BlockedBody(holes=holes, unbound=unbound))


FragmentErrorKind = Literal["parse", "no_such_statement", "no_such_heredoc", "needs_session_state"]


class FragmentError(GatewayError):
    """
    A fragment could not be expanded at all.

    Attributes:
        kind: ``parse``, ``no_such_statement``, ``no_such_heredoc`` or ``needs_session_state``.
    """

    def __init__(self, kind: FragmentErrorKind, message: str) -> None:
        super().__init__(message)
        self.kind: FragmentErrorKind = kind
        self.message = message


# ───────────────────────── sequence plans ─────────────────────────


class SequenceStep(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """One literal invocation: its argv and its repository-relative working directory."""

    argv: tuple[str, ...]
    cwd: str


class SequencePlan(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """
    A strict, literal view of a command: fixed argv steps and where each runs.

    A measured plan describes literal invocations only: it proves nothing ran
    or passed and grants no authority. An unmeasured one has no steps.
    """

    status: Literal["measured", "unmeasured"]
    steps: tuple[SequenceStep, ...]
    reason: str | None
