"""
The neutral syntax tree: what a shell reader says a piece of bash text is.

Both readers (tree-sitter and bashlex) produce these Structs and nothing
above the ``_read`` package ever sees a parser's own node type. The tree is
pure data: frozen msgspec Structs, tuples for every collection, tagged unions
with explicit tags, no behaviour beyond small derived properties and the one
statement of what each node contains that every walker of the tree shares:
`inside` (a compound command's blocks, words and expressions), `within` (the
parts directly inside a part), `children` (any node's direct children) and
the two walks built on them, `walk` (every node) and `walk_parts` (every part
of a word, not into substitution bodies). A construct added to the tree is
added there once, and every walker sees it.

Every node keeps its `Span` (character *and* byte offsets into the source
that was read), so anything a later layer publishes can be sliced back out of
the source. Words keep their parts as written; a word's literal value is
computed by the project's own quote removal (see ``_words``), never taken from
a parser.

This module must not import anything but msgspec and the standard library.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Literal as L, cast

import msgspec

__all__ = [
    "AndOr",
    "AnsiC",
    "ArithCommand",
    "ArithFor",
    "Arithmetic",
    "Assignment",
    "Brace",
    "Case",
    "CaseItem",
    "Command",
    "CommandSubstitution",
    "Coproc",
    "DoubleQuoted",
    "For",
    "Function",
    "Glob",
    "Group",
    "Heredoc",
    "If",
    "IfClause",
    "Inside",
    "Literal",
    "Node",
    "Parameter",
    "Part",
    "Pipeline",
    "ProcessSubstitution",
    "Program",
    "Redirect",
    "SimpleCommand",
    "SingleQuoted",
    "Span",
    "Statement",
    "Subshell",
    "Test",
    "Tilde",
    "While",
    "Word",
    "children",
    "inside",
    "walk",
    "walk_parts",
    "within",
]


class Span(msgspec.Struct, frozen=True, kw_only=True):
    """
    Where a node sits in the source it was read from.

    ``start``/``end`` are character offsets (Python string indices) and
    ``start_byte``/``end_byte`` are offsets into the UTF-8 encoding of the
    same source, so ``source[start:end]`` and
    ``source.encode()[start_byte:end_byte]`` are the same text.

    Attributes:
        start: First character of the node.
        end: One past the last character.
        start_byte: First byte of the node in the UTF-8 source.
        end_byte: One past the last byte.
    """

    start: int
    end: int
    start_byte: int
    end_byte: int


# ───────────────────────── word parts ─────────────────────────


class _Part(msgspec.Struct, frozen=True, kw_only=True, tag_field="kind"):
    span: Span


class Literal(_Part, frozen=True, kw_only=True, tag="literal"):
    """Unquoted text, after backslash escapes were removed (``a\\ b`` → ``a b``)."""

    text: str


class SingleQuoted(_Part, frozen=True, kw_only=True, tag="single_quoted"):
    """``'…'``: the text between the quotes, exactly."""

    text: str


class AnsiC(_Part, frozen=True, kw_only=True, tag="ansi_c"):
    """
    ``$'…'``: the text after decoding its escapes (``$'\\x72m'`` → ``rm``).

    ``exact`` is false when the escapes decode to bytes that are not UTF-8;
    ``text`` is then the escapes as written and the word has no literal value.
    """

    text: str
    exact: bool = True


class DoubleQuoted(_Part, frozen=True, kw_only=True, tag="double_quoted"):
    """``"…"`` (or ``$"…"`` when ``locale``): the parts between the quotes."""

    parts: tuple[Part, ...]
    locale: bool = False


class Arithmetic(_Part, frozen=True, kw_only=True, tag="arithmetic"):
    """
    An arithmetic expression: ``$((…))``, ``$[…]``, the inside of ``((…))``, or a subscript.

    Attributes:
        expression: The expression's source text, between its delimiters.
        variables: Bare names the expression reads (``i`` in ``$((i+1))``), in order.
        parts: Expansions inside it (``$x``, ``${…}``, ``$(…)``), in order.
    """

    expression: str
    variables: tuple[str, ...]
    parts: tuple[Part, ...]


class Parameter(_Part, frozen=True, kw_only=True, tag="parameter"):
    """
    A parameter expansion: ``$x``, ``${x}``, ``${#x}``, ``${!x}``, ``${x:-word}``, ``$1``, ``$?``…

    Attributes:
        name: The parameter's root name (``x``, ``1``, ``?``, ``@``).
        special: True for positional and special parameters (``$1 $? $$ $@ $# $! $- $0 $*``).
        braced: True for the ``${…}`` spelling.
        length: ``${#x}``.
        indirect: ``${!x}`` (the value names another variable: unknowable statically).
        subscript: ``${x[…]}``: the subscript, read as arithmetic.
        operator: What follows the name inside the braces (``:-``, ``#``, ``//``, ``@P``…).
        operand: The parts of the operand word(s) after the operator.
    """

    name: str
    special: bool = False
    braced: bool = False
    length: bool = False
    indirect: bool = False
    subscript: Arithmetic | None = None
    operator: str | None = None
    operand: tuple[Part, ...] = ()


class CommandSubstitution(_Part, frozen=True, kw_only=True, tag="command_substitution"):
    """``$(…)`` or (``backtick``) ``\\`…\\```: the statements it runs."""

    backtick: bool
    body: tuple[Statement, ...]


class ProcessSubstitution(_Part, frozen=True, kw_only=True, tag="process_substitution"):
    """``<(…)`` or ``>(…)``: the statements it runs."""

    direction: L["<", ">"]
    body: tuple[Statement, ...]


class Tilde(_Part, frozen=True, kw_only=True, tag="tilde"):
    """``~`` or ``~user`` where bash expands it to a home directory."""

    text: str


class Glob(_Part, frozen=True, kw_only=True, tag="glob"):
    """An unquoted pattern character or bracket expression (``*``, ``?``, ``[ab]``)."""

    text: str


class Brace(_Part, frozen=True, kw_only=True, tag="brace"):
    """A brace expansion (``{a,b}``, ``{1..3}``): its inner parts, commas included as literals."""

    parts: tuple[Part, ...]


Part = (
    Literal
    | SingleQuoted
    | AnsiC
    | DoubleQuoted
    | Arithmetic
    | Parameter
    | CommandSubstitution
    | ProcessSubstitution
    | Tilde
    | Glob
    | Brace
)


class Word(msgspec.Struct, frozen=True, kw_only=True):
    """
    One shell word as written, split into its parts.

    Attributes:
        span: Where the word is.
        text: The word's source text, verbatim.
        parts: What the word is made of, in order.
        value: The word after quote removal when it has no expansion of any
            kind (parameter, substitution, arithmetic, tilde, glob, brace);
            ``None`` when the word is dynamic.
    """

    span: Span
    text: str
    parts: tuple[Part, ...]
    value: str | None


# ───────────────────────── commands ─────────────────────────


class Heredoc(msgspec.Struct, frozen=True, kw_only=True):
    """
    A here-document fed to a command's standard input.

    Attributes:
        operator: ``<<`` or ``<<-`` (``<<-`` strips leading tabs from body lines).
        delimiter: The delimiter word with its quotes removed.
        delimiter_text: The delimiter word as written (``'EOF'``).
        quoted: Any quoting in the delimiter word: the body is literal.
        body_span: Where the body is: from the line after the introducer up to
            (not including) the line holding the closing delimiter.
        body: The body, verbatim (tabs, CRLF and backslashes kept).
        parts: For an unquoted body, its expansions and literal text; for a
            quoted one, empty.
    """

    operator: L["<<", "<<-"]
    delimiter: str
    delimiter_text: str
    quoted: bool
    body_span: Span
    body: str
    parts: tuple[Part, ...]


class Redirect(msgspec.Struct, frozen=True, kw_only=True):
    """
    One redirection.

    Attributes:
        span: The operator through its target (not the heredoc body).
        fd: The file descriptor or ``{name}`` written before the operator, if any.
        operator: The operator as written (``>``, ``>>``, ``<``, ``<<``, ``<<-``,
            ``<<<``, ``&>``, ``&>>``, ``>&``, ``<&``, ``>|``, ``<>``).
        target: The target word (for heredocs, the delimiter word).
        heredoc: The here-document, for ``<<`` and ``<<-``.
    """

    span: Span
    fd: str | None
    operator: str
    target: Word | None
    heredoc: Heredoc | None = None


class Assignment(msgspec.Struct, frozen=True, kw_only=True):
    """
    ``NAME=value``, ``NAME+=value``, ``NAME[sub]=value`` or ``NAME=(a b)``.

    Attributes:
        span: The whole assignment.
        name: The variable's name.
        subscript: The ``[…]`` subscript, read as arithmetic.
        append: ``+=``.
        value: The value word (``None`` for an array or an empty value).
        array: The elements of an array value.
    """

    span: Span
    name: str
    subscript: Arithmetic | None
    append: bool
    value: Word | None
    array: tuple[Word, ...] | None = None


class _Command(msgspec.Struct, frozen=True, kw_only=True, tag_field="kind"):
    span: Span
    redirects: tuple[Redirect, ...]


class SimpleCommand(_Command, frozen=True, kw_only=True, tag="simple"):
    """Leading assignments, then words (the first names the program), with redirects."""

    assignments: tuple[Assignment, ...]
    words: tuple[Word, ...]


class Subshell(_Command, frozen=True, kw_only=True, tag="subshell"):
    """``( … )``."""

    body: tuple[Statement, ...]


class Group(_Command, frozen=True, kw_only=True, tag="group"):
    """``{ …; }``."""

    body: tuple[Statement, ...]


class IfClause(msgspec.Struct, frozen=True, kw_only=True):
    """One ``if``/``elif`` condition and the body it guards."""

    condition: tuple[Statement, ...]
    body: tuple[Statement, ...]


class If(_Command, frozen=True, kw_only=True, tag="if"):
    """``if … then … [elif … then …] [else …] fi``."""

    clauses: tuple[IfClause, ...]
    else_body: tuple[Statement, ...] | None


class For(_Command, frozen=True, kw_only=True, tag="for"):
    """
    ``for NAME [in WORDS]; do …; done`` (``items`` is ``None`` without ``in``).

    ``select`` is the ``select NAME [in WORDS]; do …; done`` loop: bash prints
    the words as a menu, reads a line of standard input into ``REPLY`` and
    binds ``NAME`` to the word it chose — or to the empty string when the
    line chose none — until the body breaks or the input ends.
    """

    variable: str
    items: tuple[Word, ...] | None
    body: tuple[Statement, ...]
    select: bool = False


class ArithFor(_Command, frozen=True, kw_only=True, tag="arith_for"):
    """``for ((init; condition; update)); do …; done``."""

    expressions: tuple[Arithmetic, ...]
    body: tuple[Statement, ...]


class While(_Command, frozen=True, kw_only=True, tag="while"):
    """``while``/``until`` (``until`` true) ``…; do …; done``."""

    until: bool
    condition: tuple[Statement, ...]
    body: tuple[Statement, ...]


class CaseItem(msgspec.Struct, frozen=True, kw_only=True):
    """
    One ``pattern | pattern) body ;;`` arm (terminator ``;;``, ``;&`` or ``;;&``).

    Attributes:
        patterns: The patterns, in order.
        body: The statements the arm runs.
        terminator: ``;;``, ``;&``, ``;;&``, or ``None`` for a last arm without one.
        head: From the arm's first character (an optional ``(``) through its ``)``.
        span: The whole arm, its terminator included.
    """

    patterns: tuple[Word, ...]
    body: tuple[Statement, ...]
    terminator: str | None
    head: Span
    span: Span


class Case(_Command, frozen=True, kw_only=True, tag="case"):
    """``case WORD in … esac``."""

    subject: Word
    items: tuple[CaseItem, ...]


class Function(_Command, frozen=True, kw_only=True, tag="function"):
    """A function definition; defining it runs nothing, calling it runs ``body``."""

    name: str
    body: Command


class Coproc(_Command, frozen=True, kw_only=True, tag="coproc"):
    """
    ``coproc [NAME] COMMAND``: a coprocess.

    bash runs ``body`` asynchronously in a subshell (it can outlive the
    statement), with its standard input and output as pipes, and binds the
    array ``NAME`` (the two pipe descriptors) and ``NAME_PID`` in the shell
    that runs the statement. A simple command takes no name (``coproc k a``
    runs ``k a`` and names it ``COPROC``); a compound command may
    (``coproc N { …; }``). The redirects after it are the body's own.

    Attributes:
        name: The name bound (``COPROC`` when none is written).
        keyword: Where ``coproc`` and the name written after it stand.
        body: The command the coprocess runs.
    """

    name: str
    keyword: Span
    body: Command


class ArithCommand(_Command, frozen=True, kw_only=True, tag="arith"):
    """``(( expression ))``."""

    expression: Arithmetic


class Test(_Command, frozen=True, kw_only=True, tag="test"):
    """``[[ … ]]``: its operand words, in order (operators included as words)."""

    operands: tuple[Word, ...]


Command = (
    SimpleCommand
    | Subshell
    | Group
    | If
    | For
    | ArithFor
    | While
    | Case
    | Function
    | Coproc
    | ArithCommand
    | Test
)


class Pipeline(msgspec.Struct, frozen=True, kw_only=True):
    """
    Commands joined by ``|`` or ``|&``, possibly negated with ``!``.

    Attributes:
        span: The whole pipeline.
        negated: Led by a bare ``!``.
        commands: The stages, left to right.
        operators: The operator after each stage but the last (``|`` or ``|&``).
        time: Where the ``time`` keyword and its options (``-p``, ``--``)
            stand, when the pipeline is timed; the commands are the
            pipeline's own, ``time`` runs nothing of its own.
    """

    span: Span
    negated: bool
    commands: tuple[Command, ...]
    operators: tuple[str, ...]
    time: Span | None = None


class AndOr(msgspec.Struct, frozen=True, kw_only=True):
    """Pipelines joined by ``&&`` / ``||`` (``operators[i]`` joins ``pipelines[i]`` and ``[i+1]``)."""

    span: Span
    pipelines: tuple[Pipeline, ...]
    operators: tuple[str, ...]


class Statement(msgspec.Struct, frozen=True, kw_only=True):
    """
    One and-or list and how it ends.

    Attributes:
        span: From the first token to the last, heredoc bodies included.
        body: The and-or list.
        terminator: ``;``, ``&`` or ``None`` (newline or end of input).
    """

    span: Span
    body: AndOr
    terminator: str | None

    @property
    def background(self) -> bool:
        """True when the statement is run in the background (``&``)."""
        return self.terminator == "&"


class Program(msgspec.Struct, frozen=True, kw_only=True):
    """All the statements of a source, in order."""

    statements: tuple[Statement, ...]


Inside = tuple[Statement, ...] | Word | Arithmetic | Command
"""What `inside` yields: a block of statements, a word, an arithmetic part, or a command."""


def inside(command: Command) -> Iterator[Inside]:
    """
    Yield what a compound command contains, in source order.

    Blocks of statements come as tuples (a loop's body, an ``if`` condition),
    words as `Word` (``for`` items, ``case`` subject and patterns, ``[[ ]]``
    operands), arithmetic as `Arithmetic` (``(( ))`` and the three
    ``for (( ; ; ))`` expressions) and a function's or a coprocess's body as
    its `Command`.
    Names a compound binds (``for NAME``, a function's name) and the
    command's redirects are not yielded, and a simple command yields nothing:
    each walker reads those its own way. A walker that handles every yielded
    kind sees every piece of text the command can run or expand.
    """
    if isinstance(command, Subshell | Group):
        yield command.body
    elif isinstance(command, If):
        for clause in command.clauses:
            yield clause.condition
            yield clause.body
        if command.else_body is not None:
            yield command.else_body
    elif isinstance(command, For):
        yield from command.items or ()
        yield command.body
    elif isinstance(command, ArithFor):
        yield from command.expressions
        yield command.body
    elif isinstance(command, While):
        yield command.condition
        yield command.body
    elif isinstance(command, Case):
        yield command.subject
        for arm in command.items:
            yield from arm.patterns
            yield arm.body
    elif isinstance(command, Function | Coproc):
        yield command.body
    elif isinstance(command, ArithCommand):
        yield command.expression
    elif isinstance(command, Test):
        yield from command.operands


def within(part: Part) -> Iterator[Part]:
    """
    Yield the parts directly inside ``part``, in source order.

    A double-quoted string's and a brace expansion's parts; a parameter
    expansion's subscript, then its operand's parts; an arithmetic
    expression's expansions. A substitution's body is statements, not parts,
    and is not yielded (`children` yields it); the other parts hold nothing.
    """
    if not isinstance(part, CommandSubstitution | ProcessSubstitution):
        # A part's children are parts: the table's rows for parts return nothing else.
        yield from cast("Sequence[Part]", _CHILDREN[type(part)](part))


def walk_parts(parts: Iterable[Part]) -> Iterator[Part]:
    """
    Yield every part in ``parts`` and, depth first, every part within them.

    Pre-order and in source order; substitutions are yielded, but not the
    statements of their bodies — so ``$(a "$(b)")`` yields one substitution.
    """
    stack = list(parts)
    stack.reverse()
    table = _CHILDREN
    while stack:
        part = stack.pop()
        yield part
        if not isinstance(part, CommandSubstitution | ProcessSubstitution):
            inner = cast("Sequence[Part]", table[type(part)](part))
            if inner:
                stack.extend(reversed(inner))


Node = (
    Program | Statement | AndOr | Pipeline | Command | Assignment | Redirect | Heredoc | Word | Part
)
"""Any node `walk` visits."""


def children(node: Node) -> Iterator[Node]:
    """
    Yield the direct children of any node, in order.

    A program's, a substitution's and a block's statements; a statement's
    and-or list, its pipelines, their commands. A simple command's
    assignments, then its words; a compound command's statements, words and
    expressions as `inside` yields them (blocks flattened into their
    statements); then any command's redirects. An assignment's subscript,
    value and array elements; a redirect's target word and heredoc; a
    heredoc's body parts; a word's parts; a part's parts (`within`).
    """
    yield from _CHILDREN[type(node)](node)


def _nothing(node: Node) -> Sequence[Node]:
    return ()


def _parts(node: Word | DoubleQuoted | Brace | Arithmetic | Heredoc) -> Sequence[Node]:
    return node.parts


def _body(node: CommandSubstitution | ProcessSubstitution) -> Sequence[Node]:
    return node.body


def _parameter(node: Parameter) -> Sequence[Node]:
    if node.subscript is None:
        return node.operand
    return (node.subscript, *node.operand)


def _statement(node: Statement) -> Sequence[Node]:
    return (node.body,)


def _andor(node: AndOr) -> Sequence[Node]:
    return node.pipelines


def _pipeline(node: Pipeline) -> Sequence[Node]:
    return node.commands


def _simple(node: SimpleCommand) -> Sequence[Node]:
    return (*node.assignments, *node.words, *node.redirects)


def _compound(node: Command) -> Sequence[Node]:
    out: list[Node] = []
    for child in inside(node):
        if isinstance(child, tuple):
            out.extend(child)
        else:
            out.append(child)
    out.extend(node.redirects)
    return out


def _assignment(node: Assignment) -> Sequence[Node]:
    return (*_present(node.subscript, node.value), *(node.array or ()))


def _redirect(node: Redirect) -> Sequence[Node]:
    return _present(node.target, node.heredoc)


def _present(*nodes: Node | None) -> tuple[Node, ...]:
    return tuple(node for node in nodes if node is not None)


def _program(node: Program) -> Sequence[Node]:
    return node.statements


_CHILDREN: dict[type, Callable[[Any], Sequence[Node]]] = {
    Literal: _nothing,
    SingleQuoted: _nothing,
    AnsiC: _nothing,
    Tilde: _nothing,
    Glob: _nothing,
    DoubleQuoted: _parts,
    Brace: _parts,
    Arithmetic: _parts,
    Parameter: _parameter,
    CommandSubstitution: _body,
    ProcessSubstitution: _body,
    Word: _parts,
    Statement: _statement,
    AndOr: _andor,
    Pipeline: _pipeline,
    SimpleCommand: _simple,
    Subshell: _compound,
    Group: _compound,
    If: _compound,
    For: _compound,
    ArithFor: _compound,
    While: _compound,
    Case: _compound,
    Function: _compound,
    Coproc: _compound,
    ArithCommand: _compound,
    Test: _compound,
    Assignment: _assignment,
    Redirect: _redirect,
    Heredoc: _parts,
    Program: _program,
}
"""Each node type's direct children, in order: the one table `children` and `walk` read."""


def walk(node: Node, descend: Callable[[Node], bool] | None = None) -> Iterator[Node]:
    """
    Yield ``node`` and every node beneath it, depth first, in `children` order.

    The walk goes everywhere — into substitution bodies, heredoc bodies,
    function bodies — unless ``descend`` returns false for a node, whose
    children are then skipped (the node itself is still yielded). It keeps
    its own stack, so no nesting the readers admit can exhaust Python's.
    """
    table = _CHILDREN
    stack: list[Node] = [node]
    while stack:
        item = stack.pop()
        yield item
        if descend is None or descend(item):
            inner = table[type(item)](item)
            if inner:
                stack.extend(reversed(inner))
