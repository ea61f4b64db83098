"""
The planner: a shell call's text → `ProgramPlan`, without running anything.

Pure, synchronous and deterministic. It reads the text with the consensus
shell reader and walks the neutral tree once per statement, publishing every
simple command that would run (in walk order: pipeline stages, conditions and
bodies, then each command's substitutions and the ``$( )`` of its unquoted
heredoc bodies), its program position, its heredocs with flat indexes, the
shell text it launches (planned in turn, to a bounded depth), and the
statement's variables.

Digests are computed from the unredacted plan; what is returned has its
secrets masked (see `gateway._redact`). When no secret is found anywhere, the
two are the same plan and it is built once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Final, NamedTuple

import msgspec

from gateway._digest import digest_of
from gateway._launchers import SHELLS
from gateway._plans import (
    PLAN_RENDER_LIMIT,
    NestedOrigin,
    NestedShell,
    Plain,
    Plan,
    PlannedAssignment,
    PlannedCommand,
    PlannedHeredoc,
    PlannedRedirect,
    PlannedValue,
    ProgramPlan,
    ProgramPosition,
    StatementKind,
    StatementPlan,
)
from gateway._position import PositionReading, PositionWord, decline_sentence, read_position
from gateway._redact import Redactor, find_secrets
from gateway._shell import read_shell
from gateway._shell._segment import split_segment
from gateway._shell._source import Source
from gateway._shell._tree import (
    ArithCommand,
    ArithFor,
    Arithmetic,
    Assignment,
    Brace,
    Case,
    Command,
    CommandSubstitution,
    DoubleQuoted,
    For,
    Function,
    Glob,
    Group,
    Heredoc,
    If,
    Literal,
    Parameter,
    Part,
    ProcessSubstitution,
    Redirect,
    SimpleCommand,
    Statement,
    Subshell,
    Tilde,
    While,
    Word,
    inside,
)
from gateway._variables import heredoc_reads, statement_names

__all__ = [
    "MAX_NESTED_SHELL_DEPTH",
    "PlannedStatement",
    "iter_commands",
    "plan_program",
    "plan_statements",
    "position_words",
    "read_program_position",
    "unreadable_plan",
]

MAX_NESTED_SHELL_DEPTH: Final = 4
"""How deep shell text inside shell text (``sh -c "bash -c '…'"``) is planned."""

TRUNCATION_MARKER: Final = f"\n[rendering truncated at {PLAN_RENDER_LIMIT} bytes]"
_FIND_EXEC: Final = frozenset({"-exec", "-execdir", "-ok", "-okdir"})
_SSH_OPTIONS_WITH_VALUE: Final = frozenset("bcDEeFIiJLlmOopQRSWw")
_GIT_RUNNING_KEYS: Final = frozenset(
    {
        "core.pager",
        "core.editor",
        "core.sshcommand",
        "core.fsmonitor",
        "core.askpass",
        "core.gitproxy",
        "diff.external",
        "credential.helper",
        "sequence.editor",
        "gpg.program",
        "uploadpack.packobjectshook",
        "sendemail.sendmailcmd",
    }
)
_GIT_RUNNING_SUFFIXES: Final = (
    ".textconv",
    ".command",
    ".driver",
    ".clean",
    ".smudge",
    ".process",
    ".program",
    ".uploadpack",
    ".receivepack",
)


class PlannedStatement(NamedTuple):
    """A statement's plan with the heredoc nodes behind its flat heredoc indexes."""

    plan: Plan
    heredocs: tuple[Heredoc, ...]
    statement: Statement


def position_words(words: Sequence[Word]) -> list[PositionWord]:
    """The position reader's view of neutral-tree words."""
    return [
        PositionWord(
            text=word.text,
            value=word.value,
            bare=len(word.parts) == 1
            and isinstance(word.parts[0], Literal)
            and word.parts[0].text == word.text,
        )
        for word in words
    ]


def _truncate(text: str) -> str:
    data = text.encode("utf-8", "surrogatepass")
    if len(data) <= PLAN_RENDER_LIMIT:
        return text
    return data[:PLAN_RENDER_LIMIT].decode("utf-8", "ignore") + TRUNCATION_MARKER


def _expansion_kinds(parts: Sequence[Part], kinds: set[str]) -> None:
    for part in parts:
        if isinstance(part, Parameter):
            kinds.add("parameter")
            if part.indirect:
                kinds.add("indirect")
            if part.operator is not None and part.operator.startswith("@"):
                kinds.add("transform")
            if part.subscript is not None:
                _expansion_kinds((part.subscript,), kinds)
            _expansion_kinds(part.operand, kinds)
        elif isinstance(part, CommandSubstitution):
            kinds.add("command_substitution")
        elif isinstance(part, ProcessSubstitution):
            kinds.add("process_substitution")
        elif isinstance(part, Arithmetic):
            kinds.add("arithmetic")
            _expansion_kinds(part.parts, kinds)
        elif isinstance(part, DoubleQuoted):
            _expansion_kinds(part.parts, kinds)
        elif isinstance(part, Brace):
            kinds.add("brace")
            _expansion_kinds(part.parts, kinds)
        elif isinstance(part, Tilde):
            kinds.add("tilde")
        elif isinstance(part, Glob):
            kinds.add("glob")


def _substitutions(parts: Sequence[Part]) -> Iterator[CommandSubstitution | ProcessSubstitution]:
    """The substitutions among ``parts`` (not those inside their bodies), in order."""
    for part in parts:
        if isinstance(part, CommandSubstitution | ProcessSubstitution):
            yield part
        elif isinstance(part, DoubleQuoted | Brace):
            yield from _substitutions(part.parts)
        elif isinstance(part, Parameter):
            if part.subscript is not None:
                yield from _substitutions((part.subscript,))
            yield from _substitutions(part.operand)
        elif isinstance(part, Arithmetic):
            yield from _substitutions(part.parts)


def _sub_context(parent: str, *, process: bool = False, heredoc: bool = False) -> str:
    """The context of commands found inside a command whose context is ``parent``."""
    if parent not in ("command", "substitution", "process_substitution"):
        return parent  # inside a function body or a heredoc hole, they stay there
    if heredoc:
        return "heredoc"
    return "process_substitution" if process else "substitution"


class _Context:
    """What one planning run shares: whether to redact, the nesting depth, and a reading cache."""

    def __init__(self, *, redact: bool, cache: dict[str, ProgramPlan]) -> None:
        self.redact = redact
        self.cache = cache
        self.saw_secret = False


class _Builder:
    def __init__(self, source: Source, context: _Context, depth: int) -> None:
        self.source = source
        self.context = context
        self.depth = depth
        secrets = find_secrets(source.text)
        if secrets:
            context.saw_secret = True
        self.redactor = Redactor(source.text, secrets if context.redact else ())
        self.commands: list[PlannedCommand] = []
        self.heredocs: list[Heredoc] = []
        self.pending: list[Redirect] = []

    # ── values ──

    def value(self, start: int, end: int, text: str | None = None) -> PlannedValue:
        return self.redactor.value(start, end, text)

    def word_text(self, word: Word) -> PlannedValue:
        return self.value(word.span.start, word.span.end)

    def word_value(self, word: Word) -> PlannedValue | None:
        if word.value is None:
            return None
        return self.value(word.span.start, word.span.end, word.value)

    def names(self, names: Sequence[str]) -> tuple[str, ...]:
        """Variable or function names to publish, any secret among them masked."""
        return tuple(self.redactor.scrub(name) for name in names)

    def derived(self, text: str) -> PlannedValue:
        """A value not cut from this source (nested text): its secrets are found afresh."""
        if not self.context.redact:
            if find_secrets(text):
                self.context.saw_secret = True
            return Plain(text)
        return Redactor(text).value(0, len(text))

    # ── statements ──

    def statement(self, statement: Statement) -> PlannedStatement:
        self.commands = []
        self.heredocs = []
        self.walk_statements((statement,), background=False, context="command", inherited=())
        names = statement_names(statement)
        free, bound = names.free_and_bound()
        rendered = _truncate(self.redactor.mask(statement.span.start, statement.span.end))
        plan = Plan(
            rendered=rendered,
            statement_kind=statement_kind(statement),
            commands=tuple(self.commands),
            # Names are identifiers, but a token can be one (`$(( ghp_… + 1 ))`).
            free_variables=self.names(free),
            bound_variables=self.names(bound),
            arithmetic_variables=self.names(sorted(set(names.arithmetic) - set(bound))),
            functions=self.names(sorted(set(names.functions))),
        )
        return PlannedStatement(plan, tuple(self.heredocs), statement)

    def walk_statements(
        self,
        statements: Sequence[Statement],
        *,
        background: bool,
        context: str,
        inherited: tuple[PlannedRedirect, ...],
    ) -> None:
        outer = self.fed_by
        for statement in statements:
            in_background = background or statement.terminator == "&"
            for pipeline in statement.body.pipelines:
                upstream: list[str] = []
                for command in pipeline.commands:
                    self.fed_by = tuple(upstream)
                    first = len(self.commands)
                    self.walk_command(
                        command, background=in_background, context=context, inherited=inherited
                    )
                    upstream.extend(
                        c.position.program.basename
                        for c in self.commands[first:]
                        if c.context == context and c.position.program is not None
                    )
        self.fed_by = outer

    fed_by: tuple[str, ...] = ()

    def walk_parts_commands(
        self, parts: Sequence[Part], *, background: bool, context: str, heredoc: bool = False
    ) -> None:
        """Walk the bodies of the substitutions among ``parts``, found in a command of ``context``."""
        outer, self.fed_by = self.fed_by, ()
        for sub in _substitutions(parts):
            inner = _sub_context(
                context, process=isinstance(sub, ProcessSubstitution), heredoc=heredoc
            )
            self.walk_statements(sub.body, background=background, context=inner, inherited=())
        self.fed_by = outer

    def walk_command(
        self,
        command: Command,
        *,
        background: bool,
        context: str,
        inherited: tuple[PlannedRedirect, ...],
    ) -> None:
        if isinstance(command, SimpleCommand):
            self.simple(command, background=background, context=context, inherited=inherited)
            return
        own: list[PlannedRedirect] = []
        for redirect in command.redirects:
            if redirect.heredoc is not None:
                self.pending.append(redirect)
            else:
                own.append(self.redirect(redirect, inherited=True))
        scope = inherited + tuple(own)
        pending_before = len(self.pending) - sum(
            1 for r in command.redirects if r.heredoc is not None
        )
        for redirect in command.redirects:
            if redirect.target is not None and redirect.heredoc is None:
                self.walk_parts_commands(
                    redirect.target.parts, background=background, context=context
                )
        for child in inside(command):
            if isinstance(child, tuple):
                self.walk_statements(child, background=background, context=context, inherited=scope)
            elif isinstance(child, Word | Arithmetic):
                parts = child.parts if isinstance(child, Word) else (child,)
                self.walk_parts_commands(parts, background=background, context=context)
            else:  # a function's body runs where the function is called
                self.walk_command(child, background=background, context="function", inherited=scope)
        if len(self.pending) > pending_before:
            # A heredoc on a compound that ran no simple command still feeds it: publish it.
            self.emit_empty(background=background, context=context, inherited=scope)

    def emit_empty(
        self, *, background: bool, context: str, inherited: tuple[PlannedRedirect, ...]
    ) -> None:
        taken, heredocs = self.take_heredocs(())
        self.commands.append(
            PlannedCommand(
                name="",
                args=(),
                redirects=inherited,
                background=background,
                heredocs=heredocs,
                context=context,  # type: ignore[arg-type]
            )
        )
        self.walk_heredoc_bodies(taken, background=background, context=context)

    def take_heredocs(
        self, own: Sequence[Redirect]
    ) -> tuple[list[Redirect], tuple[PlannedHeredoc, ...]]:
        """Index the pending compound heredocs, then the command's own, in that order."""
        taken = [*self.pending, *(r for r in own if r.heredoc is not None)]
        self.pending = []
        return taken, tuple(self.heredoc(r.heredoc) for r in taken if r.heredoc is not None)

    def walk_heredoc_bodies(
        self, taken: Sequence[Redirect], *, background: bool, context: str
    ) -> None:
        for redirect in taken:
            heredoc = redirect.heredoc
            if heredoc is not None and not heredoc.quoted:
                self.walk_parts_commands(
                    heredoc.parts, background=background, context=context, heredoc=True
                )

    def heredoc(self, heredoc: Heredoc) -> PlannedHeredoc:
        index = len(self.heredocs)
        self.heredocs.append(heredoc)
        holes = sum(1 for _ in _substitutions(heredoc.parts)) if not heredoc.quoted else 0
        return PlannedHeredoc(
            index=index,
            delimiter=heredoc.delimiter,
            literal=heredoc.quoted,
            strip_tabs=heredoc.operator == "<<-",
            body=self.value(heredoc.body_span.start, heredoc.body_span.end),
            body_offset=heredoc.body_span.start_byte,
            free_variables=self.names(heredoc_reads(heredoc)),
            holes=holes,
        )

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

    def simple(
        self,
        command: SimpleCommand,
        *,
        background: bool,
        context: str,
        inherited: tuple[PlannedRedirect, ...],
    ) -> None:
        words = command.words
        has_pending = bool(self.pending)
        if not words and not command.redirects and not has_pending:
            # A bare assignment runs nothing, but its value may hold substitutions.
            for assignment in command.assignments:
                self.walk_assignment_commands(assignment, background=background, context=context)
            return
        taken, heredocs = self.take_heredocs(command.redirects)
        redirects = tuple(self.redirect(r) for r in command.redirects) + inherited
        kinds: set[str] = set()
        for word in words:
            _expansion_kinds(word.parts, kinds)
        for assignment in command.assignments:
            if assignment.value is not None:
                _expansion_kinds(assignment.value.parts, kinds)
        for redirect in command.redirects:
            if redirect.target is not None and redirect.heredoc is None:
                _expansion_kinds(redirect.target.parts, kinds)
        for redirect in taken:  # an unquoted heredoc body expands like a word
            if redirect.heredoc is not None and not redirect.heredoc.quoted:
                _expansion_kinds(redirect.heredoc.parts, kinds)
        reading = read_position(position_words(words), [a.name for a in command.assignments])
        nested = self.nested(words, reading)
        position = reading.position if words else ProgramPosition()
        name = words[0].text if words else ""
        if self.redactor:
            # The name, the position's sentences and the nested shells' reasons
            # quote words as plain strings, outside any PlannedValue: mask them too.
            scrub = self.redactor.scrub
            name = scrub(name)
            position = _scrub_position(position, scrub)
            nested = tuple(
                msgspec.structs.replace(
                    n, via=scrub(n.via), reason=None if n.reason is None else scrub(n.reason)
                )
                for n in nested
            )
        planned = PlannedCommand(
            name=name,
            args=tuple(self.word_text(word) for word in words[1:]),
            argv=tuple(self.word_value(word) for word in words),
            assignments=tuple(
                PlannedAssignment(
                    name=a.name,
                    value=self.value(a.span.start, a.span.end)
                    if a.value is None
                    else self.word_text(a.value),
                )
                for a in command.assignments
            ),
            redirects=redirects,
            background=background,
            heredocs=heredocs,
            position=position,
            context=context,  # type: ignore[arg-type]
            expansions=tuple(sorted(kinds)),
            nested=nested,
            fed_by=self.fed_by,
        )
        self.commands.append(planned)
        # Then what runs inside it, in source order: substitutions in its
        # assignments, words and redirect targets, then its heredoc bodies.
        for assignment in command.assignments:
            self.walk_assignment_commands(assignment, background=background, context=context)
        for word in words:
            self.walk_parts_commands(word.parts, background=background, context=context)
        for redirect in command.redirects:
            if redirect.target is not None and redirect.heredoc is None:
                self.walk_parts_commands(
                    redirect.target.parts, background=background, context=context
                )
        self.walk_heredoc_bodies(taken, background=background, context=context)

    def walk_assignment_commands(
        self, assignment: Assignment, *, background: bool, context: str
    ) -> None:
        if assignment.subscript is not None:
            self.walk_parts_commands(
                (assignment.subscript,), background=background, context=context
            )
        if assignment.value is not None:
            self.walk_parts_commands(assignment.value.parts, background=background, context=context)
        for element in assignment.array or ():
            self.walk_parts_commands(element.parts, background=background, context=context)

    # ── nested shell text ──

    def nested(self, words: Sequence[Word], reading: PositionReading) -> tuple[NestedShell, ...]:
        found: list[NestedShell] = []
        position = reading.position
        if reading.command_string is not None:
            via, text = reading.command_string
            found.append(self.nested_text(via, text))
        if reading.shell_text_from is not None:
            operands = words[reading.shell_text_from :]
            values = [w.value for w in operands]
            text = (
                None
                if any(v is None for v in values)
                else " ".join(v for v in values if v is not None)
            )
            found.append(
                self.nested_text(
                    position.launchers[-1].name if position.launchers else "watch", text
                )
            )
        program = position.program
        if program is None or program.index is None:
            return tuple(found)
        args = words[program.index + 1 :]
        base = program.basename
        if base in SHELLS:
            found.append(self.shell_program(program.name, args))
        elif base == "eval":
            values = [w.value for w in args]
            text = (
                None
                if any(v is None for v in values)
                else " ".join(v for v in values if v is not None)
            )
            found.append(self.nested_text("eval", text))
        elif base in ("source", "."):
            found.append(
                self.dynamic(
                    base, f"`{base}` runs the commands of a file the plan cannot see", "file"
                )
            )
        elif base == "ssh":
            found.append(self.ssh(args))
        elif base == "find":
            found.extend(self.find_exec(args))
        elif base == "git":
            found.extend(self.git_config(args))
        return tuple(found)

    def dynamic(
        self,
        via: str,
        reason: str,
        origin: NestedOrigin = "expansion",
    ) -> NestedShell:
        return NestedShell(
            via=via, text=None, status="dynamic", reason=reason, plans=(), origin=origin
        )

    def nested_text(self, via: str, text: str | None) -> NestedShell:
        if text is None:
            return self.dynamic(
                via, f"the text `{via}` runs comes from an expansion and is only known when it runs"
            )
        if self.depth >= MAX_NESTED_SHELL_DEPTH:
            return NestedShell(
                via=via,
                text=self.derived(text),
                status="unmeasured",
                reason=f"Shell text nests deeper than {MAX_NESTED_SHELL_DEPTH} levels.",
                plans=(),
            )
        inner = _plan(text, self.context, self.depth + 1)
        if inner.status != "measured":
            return NestedShell(
                via=via, text=self.derived(text), status="unmeasured", reason=inner.reason, plans=()
            )
        return NestedShell(
            via=via,
            text=self.derived(text),
            status="measured",
            reason=None,
            plans=tuple(s.plan for s in inner.statements),
        )

    def shell_program(self, name: str, args: Sequence[Word]) -> NestedShell:
        """``sh -c TEXT``, ``bash -lc TEXT``, ``bash script.sh``, or a shell reading standard input."""
        command_flag = False
        j = 0
        while j < len(args):
            value = args[j].value
            if value is None:
                if command_flag:  # `sh -c "$CMD"`: the command text itself is the expansion
                    return self.nested_text(f"{name} -c", None)
                return self.dynamic(name, f"`{name}` is given an option from an expansion")
            if value in ("-o", "+o", "-O", "+O", "--rcfile", "--init-file"):
                j += 2
                continue
            if value == "--":
                j += 1
                break
            if value.startswith("--") or (
                len(value) > 1 and value[0] in "-+" and value[1:].isalpha()
            ):
                if value[0] == "-" and not value.startswith("--") and "c" in value[1:]:
                    command_flag = True
                j += 1
                continue
            break
        if command_flag:
            if j >= len(args):
                return self.dynamic(f"{name} -c", f"`{name} -c` is given no command text")
            return self.nested_text(f"{name} -c", args[j].value)
        if j < len(args):
            script = args[j].text
            return self.dynamic(
                name, f"`{name}` runs the script `{script}`, which the plan cannot see", "file"
            )
        return self.dynamic(
            name,
            f"`{name}` reads its commands from standard input, which the plan cannot see",
            "stdin",
        )

    def ssh(self, args: Sequence[Word]) -> NestedShell:
        j = 0
        while j < len(args):
            value = args[j].value
            if value is None:
                return self.dynamic("ssh", "`ssh` is given an argument from an expansion")
            if value == "--":
                j += 1
                break
            if value.startswith("-") and len(value) > 1:
                letters = value[1:]
                takes = next(
                    (k for k, letter in enumerate(letters) if letter in _SSH_OPTIONS_WITH_VALUE),
                    None,
                )
                j += 2 if takes is not None and takes == len(letters) - 1 else 1
                continue
            break
        if j >= len(args):
            return self.dynamic("ssh", "`ssh` names no host", "remote")
        remote = args[j + 1 :]
        if not remote:
            return self.dynamic(
                "ssh", "`ssh` opens an interactive shell on the remote host", "remote"
            )
        values = [w.value for w in remote]
        text = (
            None if any(v is None for v in values) else " ".join(v for v in values if v is not None)
        )
        return self.nested_text("ssh", text)

    def find_exec(self, args: Sequence[Word]) -> list[NestedShell]:
        found: list[NestedShell] = []
        j = 0
        while j < len(args):
            value = args[j].value
            if value in _FIND_EXEC:
                start = j + 1
                k = start
                while k < len(args) and not (
                    args[k].value == ";"
                    or (args[k].value == "+" and k > start and args[k - 1].value == "{}")
                ):
                    k += 1
                via = f"find {value}"
                if k >= len(args):
                    found.append(
                        NestedShell(
                            via=via,
                            text=None,
                            status="unmeasured",
                            reason=f"`{via}` has no `;` or `+` to end it.",
                            plans=(),
                        )
                    )
                    break
                if k == start:
                    found.append(
                        NestedShell(
                            via=via,
                            text=None,
                            status="unmeasured",
                            reason=f"`{via}` names no program.",
                            plans=(),
                        )
                    )
                else:
                    # The words are shell words already: their source text,
                    # joined, is a command with exactly these words.
                    text = " ".join(word.text for word in args[start:k])
                    found.append(self.nested_text(via, text))
                j = k + 1
                continue
            j += 1
        return found

    def git_config(self, args: Sequence[Word]) -> list[NestedShell]:
        found: list[NestedShell] = []
        j = 0
        while j < len(args):
            value = args[j].value
            if value is None or not value.startswith("-"):
                break
            if value == "-c" and j + 1 < len(args):
                setting = args[j + 1].value
                if setting is None:
                    found.append(
                        self.dynamic("git -c", "`git -c` is given a setting from an expansion")
                    )
                else:
                    key, _, text = setting.partition("=")
                    key = key.lower()
                    if key.startswith("alias.") and text.startswith("!"):
                        found.append(self.nested_text(f"git -c {key}", text[1:]))
                    elif (
                        key in _GIT_RUNNING_KEYS
                        or (key.count(".") >= 1 and key.endswith(_GIT_RUNNING_SUFFIXES))
                        or key.startswith("pager.")
                    ):
                        found.append(self.nested_text(f"git -c {key}", text))
                j += 2
                continue
            j += (
                1
                if "=" in value
                or value in ("--no-pager", "-p", "--paginate", "--bare", "--no-replace-objects")
                else 2
            )
        return found


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


def statement_kind(statement: Statement) -> StatementKind:
    """Return the statement's kind by the shape rules documented on `StatementKind`."""
    andor = statement.body
    if len(andor.pipelines) > 1:
        operators = set(andor.operators)
        if operators == {"&&"}:
            return "and_chain"
        if operators == {"||"}:
            return "or_chain"
        return "list"
    pipeline = andor.pipelines[0]
    if len(pipeline.commands) > 1 or pipeline.negated or statement.terminator == "&":
        return "pipeline"
    command = pipeline.commands[0]
    if command.redirects:
        return "pipeline"
    if isinstance(command, SimpleCommand):
        if not command.words:
            return "assignment"
        return "env_scoped" if command.assignments else "command"
    if isinstance(command, Subshell):
        return "subshell"
    if isinstance(command, Group):
        return "group"
    if isinstance(command, If):
        return "if"
    if isinstance(command, For | ArithFor):
        return "for"
    if isinstance(command, While):
        return "until" if command.until else "while"
    if isinstance(command, Case):
        return "case"
    if isinstance(command, Function):
        return "function"
    if isinstance(command, ArithCommand):
        return "arith"
    return "test"


def _unmeasured(source: str, reason: str, *, redact: bool) -> ProgramPlan:
    digest = digest_of(
        {"source": source, "status": "unmeasured", "reason": reason, "statements": []}
    )
    shown = source
    if redact:
        # A reader's reason may quote the text it could not read: mask it like the source.
        redactor = Redactor(source)
        shown, reason = redactor.mask(0, len(source)), redactor.scrub(reason)
    return ProgramPlan(
        source=shown, status="unmeasured", reason=reason, statements=(), digest=digest
    )


def unreadable_plan(source: str, reason: str) -> ProgramPlan:
    """An unmeasured plan of ``source`` with ``reason`` (secrets masked), for text the planner must not read."""
    return _unmeasured(source, reason, redact=True)


def plan_statements(source: str) -> tuple[ProgramPlan, tuple[PlannedStatement, ...]]:
    """
    Plan ``source`` unredacted and keep the statement internals (for fragments).

    Returns the unredacted plan and, when measured, each statement with its heredoc nodes.
    """
    context = _Context(redact=False, cache={})
    reading = read_shell(source)
    if reading.program is None:
        return _unmeasured(
            source, reading.reason or "The text could not be read.", redact=False
        ), ()
    builder = _Builder(Source(source), context, 0)
    planned = tuple(builder.statement(s) for s in reading.program.statements)
    return _program(source, planned, None), planned


def _program(
    source: str,
    planned: Sequence[PlannedStatement],
    published: Sequence[Plan] | None,
    shown: str | None = None,
) -> ProgramPlan:
    digests = [digest_of(p.plan) for p in planned]
    digest = digest_of(
        {"source": source, "status": "measured", "reason": None, "statements": digests}
    )
    plans = [p.plan for p in planned] if published is None else list(published)
    return ProgramPlan(
        source=source if shown is None else shown,
        status="measured",
        reason=None,
        statements=tuple(
            StatementPlan(index=i, plan=plan, digest=d)
            for i, (plan, d) in enumerate(zip(plans, digests, strict=True))
        ),
        digest=digest,
    )


def _plan(source: str, context: _Context, depth: int) -> ProgramPlan:
    cached = context.cache.get(source)
    if cached is not None and not context.redact:
        return cached
    reading = read_shell(source)
    if reading.program is None:
        if find_secrets(source):
            context.saw_secret = True
        return _unmeasured(
            source, reading.reason or "The text could not be read.", redact=context.redact
        )
    builder = _Builder(Source(source), context, depth)
    planned = tuple(builder.statement(s) for s in reading.program.statements)
    if not context.redact:
        result = _program(source, planned, None)
        context.cache[source] = result
        return result
    unredacted = context.cache.get(source)
    if unredacted is None:  # pragma: no cover - the unredacted pass always runs first
        unredacted = _plan(source, _Context(redact=False, cache=context.cache), depth)
    shown = builder.redactor.mask(0, len(source))
    return ProgramPlan(
        source=shown,
        status="measured",
        reason=None,
        statements=tuple(
            StatementPlan(index=s.index, plan=p.plan, digest=s.digest)
            for s, p in zip(unredacted.statements, planned, strict=True)
        ),
        digest=unredacted.digest,
    )


def plan_program(source: str) -> ProgramPlan:
    """
    Plan a shell call without running anything.

    Never raises for any text: what cannot be read is an unmeasured plan with
    one sentence of reason and no statements (never a partial plan).

    Args:
        source: The shell text, as the agent proposed it.

    Returns:
        The plan, secrets masked, with digests of the unredacted plan.

    Examples:
        >>> plan = plan_program("ls -la | wc -l")
        >>> [c.name for c in plan.statements[0].plan.commands]
        ['ls', 'wc']
        >>> plan.statements[0].plan.statement_kind
        'pipeline'
    """
    cache: dict[str, ProgramPlan] = {}
    first = _Context(redact=False, cache=cache)
    plan = _plan(source, first, 0)
    if not first.saw_secret:
        return plan
    if plan.status != "measured":
        return _unmeasured(source, plan.reason or "The text could not be read.", redact=True)
    return _plan(source, _Context(redact=True, cache=cache), 0)


def iter_commands(plan: Plan) -> Iterator[PlannedCommand]:
    """Every command of a plan and, recursively, of the shell text its commands launch."""
    for command in plan.commands:
        yield command
        for nested in command.nested:
            for inner in nested.plans:
                yield from iter_commands(inner)


def read_program_position(command: str | Sequence[Word]) -> ProgramPosition:
    """
    Read which program one simple command really runs.

    Args:
        command: The command as source text (one simple command, or a segment
            such as ``time -p make`` or ``if make`` cut from a larger program),
            or the shell reader's words for it.

    Returns:
        Its `ProgramPosition`. Text that is not one readable command is
        declined as ``unreadable_program_position``.

    Examples:
        >>> position = read_program_position("sudo -u root timeout 5 rm -rf build")
        >>> [step.basename for step in position.launchers], position.program.basename
        (['sudo', 'timeout'], 'rm')
    """
    if not isinstance(command, str):
        return read_position(position_words(command)).position
    reading = read_shell(command)
    program = reading.program
    if program is not None and len(program.statements) == 1:
        andor = program.statements[0].body
        pipeline = andor.pipelines[0]
        only = pipeline.commands[0]
        if (
            len(andor.pipelines) == 1
            and len(pipeline.commands) == 1
            and isinstance(only, SimpleCommand)
        ):
            words = position_words(only.words)
            if pipeline.negated:
                words.insert(0, PositionWord(text="!", value="!", bare=True))
            return read_position(words, [a.name for a in only.assignments]).position
    segment = split_segment(command)
    if segment is None:
        return ProgramPosition(
            decline="unreadable_program_position",
            reason=decline_sentence(
                "unreadable_program_position", "the text is not one simple command"
            ),
        )
    return read_position(position_words(segment)).position
