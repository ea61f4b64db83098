"""
The tree-sitter reader: bash text → neutral syntax tree, through tree-sitter-bash.

The only module that imports ``tree_sitter``; its nodes never leave this file.
The reader walks the *whole* tree. Every node kind it meets must be on one of
the explicit lists below; anything else, and every ``ERROR`` or missing node,
makes the reading `Unreadable` with a sentence naming the kind and offset.

tree-sitter never sees a here-document: the project's own heredoc reader
(``_heredocs``) finds them, and tree-sitter parses a copy of the text in which
each operator is a plain ``<`` redirect and each body is blank (the same
length, so every offset holds); the redirect at an operator's offset becomes
the heredoc, with the body spans the heredoc reader found, and the
substitutions of unquoted bodies are parsed from a second copy that holds
nothing else. Lists nest left-deep in tree-sitter's tree; they are flattened
to a token run and regrouped by `assemble`, so the neutral tree follows
bash's precedence, not the parser's nesting.
"""

from __future__ import annotations

import itertools
import re
import threading
from typing import Final

import msgspec
import tree_sitter
import tree_sitter_bash

from gateway._read._assemble import (
    RESERVED_WORDS,
    CmdToken,
    CoprocMark,
    NegToken,
    OpToken,
    TimeToken,
    Token,
    assemble,
)
from gateway._read._conditional import check_conditional
from gateway._read._extglob import check_extended_patterns
from gateway._read._heredocs import (
    HeredocSpan,
    blank_outside,
    body_substitutions,
    find_heredocs,
    for_tree_sitter,
    only_substitutions,
)
from gateway._read._limits import MAX_NESTING, UNLIMITED, ReadingBudget
from gateway._read._source import Source
from gateway._read._tree import (
    ArithCommand,
    ArithFor,
    Arithmetic,
    Assignment,
    Case,
    CaseItem,
    Command,
    CommandSubstitution,
    Coproc,
    For,
    Function,
    Group,
    Heredoc,
    If,
    IfClause,
    Part,
    ProcessSubstitution,
    Program,
    Redirect,
    SimpleCommand,
    Statement,
    Subshell,
    Test,
    While,
    Word,
    walk,
)
from gateway._read._words import (
    NAME,
    SubEntry,
    SubKind,
    Unreadable,
    WordMemo,
    WordScanner,
    split_assignment,
)

__all__ = ["Shape", "bare_shape", "confirms_bare", "read_with_tree_sitter"]

_LANGUAGE: Final = tree_sitter.Language(tree_sitter_bash.language())
_LOCAL = threading.local()

READER: Final = "tree-sitter"

STATEMENT_NODES: Final = frozenset(
    {
        "command",
        "redirected_statement",
        "pipeline",
        "list",
        "subshell",
        "compound_statement",
        "if_statement",
        "for_statement",
        "c_style_for_statement",
        "while_statement",
        "case_statement",
        "function_definition",
        "negated_command",
        "test_command",
        "declaration_command",
        "unset_command",
        "variable_assignment",
        "variable_assignments",
    }
)
WORD_NODES: Final = frozenset(
    {
        "word",
        "string",
        "raw_string",
        "concatenation",
        "simple_expansion",
        "expansion",
        "command_substitution",
        "process_substitution",
        "number",
        "ansi_c_string",
        "translated_string",
        "arithmetic_expansion",
        "brace_expression",
        "extglob_pattern",
        "$",  # a lone dollar sign is a literal word
    }
)
SEQUENCE_OPERATORS: Final = frozenset({";", "&", "&&", "||", "|", "|&"})
REDIRECT_NODES: Final = frozenset({"file_redirect", "herestring_redirect"})
FILE_REDIRECT_OPERATORS: Final = frozenset(
    {">", ">>", "<", "&>", "&>>", ">&", "<&", ">|", "<>", "<&-", ">&-"}
)
TEST_CONTAINERS: Final = frozenset(
    {
        "binary_expression",
        "unary_expression",
        "parenthesized_expression",
        "ternary_expression",
        "postfix_expression",
    }
)
TEST_LEAVES: Final = WORD_NODES | frozenset({"test_operator", "regex", "variable_name"})
DECLARATION_ARGUMENTS: Final = WORD_NODES | frozenset({"variable_assignment", "variable_name"})
SUBSTITUTION_NODES: Final = frozenset({"command_substitution", "process_substitution"})
IGNORED: Final = frozenset({"comment"})
MAX_COPROCS: Final = 16
"""How many ``coproc`` keywords one text may hold (each costs tree-sitter one more parse)."""


def _show(text: str) -> str:
    return repr(text if len(text) <= 20 else text[:17] + "...")


_OUTSIDE_ITS_TABLE: Final = re.compile(
    rb"\{[0-9]*(?:\.\.[0-9]*)?(?![\xc2\xc3][\x80-\xbf])[\x80-\xff]"
)
"""
Where tree-sitter-bash's scanner would read outside the C library's table.

Looking for a brace range (``{1..3}``) after a ``{``, its scanner asks
``isdigit`` of each character, which is defined only up to U+00FF: for a
character past it (or bytes it decodes as U+FFFD) it reads memory past the
table, and the process may crash (a text as short as ``{`` and two such
characters did). The pattern is each place that read would happen: the
first character past U+00FF after ``{``, its digits and an optional ``..``
and digits.
"""


def _parse(data: bytes, source: Source | None = None) -> tree_sitter.Tree:
    """
    Parse bytes with tree-sitter-bash, unless its scanner would read outside its table.

    Raises:
        Unreadable: A ``{`` followed (after digits, ``..`` and digits) by a
            character past U+00FF; its offset is ``source``'s characters, or
            bytes without one.
    """
    found = _OUTSIDE_ITS_TABLE.search(data)
    if found is not None:
        at = found.start() if source is None else source.char_of(found.start())
        raise Unreadable(
            f"the `{{` at offset {at} is followed by a character past U+00FF, which "
            "tree-sitter-bash's scanner cannot classify without reading outside its table",
            at,
        )
    parser: tree_sitter.Parser | None = getattr(_LOCAL, "parser", None)
    if parser is None:
        parser = tree_sitter.Parser(_LANGUAGE)
        _LOCAL.parser = parser
    return parser.parse(data)


def parse_only(data: bytes) -> tree_sitter.Tree:
    """Parse bytes with tree-sitter-bash and nothing more (for benchmarks)."""
    return _parse(data)


def read_with_tree_sitter(
    source: Source, budget: ReadingBudget = UNLIMITED, known: WordMemo | None = None
) -> Program:
    """
    Read ``source`` with tree-sitter-bash into the neutral tree.

    ``known``: words the plain-word reader scanned in this source; a word
    tree-sitter finds at the same span is taken from it, not scanned again
    (`WordMemo`). tree-sitter still decides every word's boundaries.

    Raises:
        Unreadable: A syntax error, a node kind outside the lists, a word the
            scanner reads differently, or nesting deeper than `MAX_NESTING`.
    """
    heredocs = find_heredocs(source.text)
    coprocs: dict[int, CoprocMark] = {}
    tree = _blank_coprocs(source, for_tree_sitter(source, heredocs), coprocs)
    any_coproc = bool(coprocs)
    root = tree.root_node
    reader = _Reader(source, budget, heredocs, coprocs, known)
    if root.has_error:
        raise reader.syntax_error(root)
    reader.body_substitutions()
    statements = reader.sequence(root.children)
    reader.check_heredocs()
    reader.check_coprocs()
    reader.scanner.finish()
    program = Program(statements=statements)
    check_extended_patterns(program, source.text)
    if any_coproc:
        _check_substituted_coprocs(program)
    return program


_BARE_WORD_NODES: Final = frozenset({"word", "raw_string", "string", "concatenation", "number"})
"""The word nodes of a command of the plain class, none of which can hold a substitution."""
_BARE_WORD_PARTS: Final = _BARE_WORD_NODES | frozenset({"string_content", '"'})
_BARE_OPERATORS: Final = frozenset({";", "&&", "|"})

Shape = list[str | tuple[tuple[int, int], ...]]
"""A text's operators and commands in order: an operator, or a command's word byte spans."""


def bare_shape(program: Program) -> Shape | None:
    """
    The shape of a reading made only of commands of words joined by ``;``, ``&&``, ``|`` and newlines.

    ``None`` when the reading has anything else (a redirect, an assignment,
    ``!``, ``time``, a compound command): `confirms_bare` does not judge it.
    """
    shape: Shape = []
    for statement in program.statements:
        andor = statement.body
        for index, pipeline in enumerate(andor.pipelines):
            if index:
                shape.append(andor.operators[index - 1])
            if pipeline.negated or pipeline.time is not None:
                return None
            for stage, command in enumerate(pipeline.commands):
                if stage:
                    shape.append(pipeline.operators[stage - 1])
                if (
                    not isinstance(command, SimpleCommand)
                    or command.redirects
                    or command.assignments
                    or not command.words
                ):
                    return None
                shape.append(tuple((w.span.start_byte, w.span.end_byte) for w in command.words))
        if statement.terminator == ";":
            shape.append(";")
        elif statement.terminator is not None:
            return None
    return shape


def confirms_bare(source: Source, shape: Shape) -> bool:
    """
    Whether tree-sitter's parse of ``source`` has exactly ``shape`` (`bare_shape`).

    The plain-word reader's reading of such a text needs no neutral tree from
    tree-sitter to be checked: tree-sitter must find the same commands, in
    the same order, each of exactly the same words (nodes with nothing
    between them are one word, as `_Reader.words` groups them), joined by
    the same operators — no error, no node of any other kind anywhere, so no
    substitution, redirect, assignment or keyword it could see and the plain
    reader not. Its words are then the plain reader's: both readings take a
    word from the same scanner by its span, and the spans are equal. Anything
    else is not confirmed, and the text is read the long way.
    """
    try:
        root = _parse(source.data).root_node
    except Unreadable:
        return False  # read the long way, which says why it is not read
    if root.has_error:
        return False
    found: Shape = []
    stack = list(reversed(root.children))
    while stack:
        node = stack.pop()
        kind = node.type
        if kind in ("list", "pipeline"):
            stack.extend(reversed(node.children))
            continue
        if kind in _BARE_OPERATORS:
            found.append(kind)
            continue
        if kind != "command":
            return False
        spans: list[tuple[int, int]] = []
        for child in node.children:
            word = child
            if child.type == "command_name":
                inner = child.children
                if spans or len(inner) != 1:
                    return False
                word = inner[0]  # the name's one word node stands for it
            elif not spans:
                return False  # something before the command's name
            if not _bare_word(word):
                return False
            if spans and spans[-1][1] == word.start_byte:
                spans[-1] = (spans[-1][0], word.end_byte)
            else:
                spans.append((word.start_byte, word.end_byte))
        found.append(tuple(spans))
    return found == shape


def _bare_word(node: tree_sitter.Node) -> bool:
    """A word node of the plain class, with nothing but text inside it."""
    if node.type not in _BARE_WORD_NODES:
        return False
    if not node.child_count:
        return True  # a word node without children: nothing inside it to judge
    stack = [node]
    while stack:
        item = stack.pop()
        if item.type not in _BARE_WORD_PARTS:
            return False
        if item.child_count:
            stack.extend(item.children)
    return True


def _check_substituted_coprocs(program: Program) -> None:
    """
    Refuse a ``coproc`` of a simple command inside a substitution.

    bash 5.2 runs a ``$( )`` or ``<( )`` from its own print of what it
    parsed, and it prints the name of every coprocess: ``$(coproc k a)``
    runs ``coproc COPROC k a``, that is the program ``COPROC``. A coprocess
    of a compound command prints back as it was written; one of a simple
    command in any substitution is refused.

    Raises:
        Unreadable: The first such coprocess.
    """
    for node in walk(program):
        if isinstance(node, CommandSubstitution | ProcessSubstitution):
            for inner in walk(node):
                if isinstance(inner, Coproc) and isinstance(inner.body, SimpleCommand):
                    at = inner.span.start
                    raise Unreadable(
                        f"the `coproc` at offset {at} is inside a substitution, where bash runs "
                        "its name as the program",
                        at,
                    )


def _blank_coprocs(source: Source, data: bytes, coprocs: dict[int, CoprocMark]) -> tree_sitter.Tree:
    """
    Parse ``data``, each ``coproc`` keyword (and the name after it) blanked; record each in ``coprocs``.

    tree-sitter has no ``coproc``: it reads ``coproc N { k; }`` as a command
    ``coproc N { k`` and a command ``}``. A command it reads as named by the
    unquoted word ``coproc`` (first, before any assignment or redirect:
    bash's keyword place) is the keyword; it and its name
    (`coproc_keyword`) are blanked in the copy, and the copy is parsed
    again, the leftmost first, so each keyword is found where the
    reading of the text before it puts a command. The command tree-sitter
    then reads right after the blanks is the coprocess's body (`assemble`);
    bashlex reads the same text, the same spans masked, and must agree.
    """
    tree = _parse(data, source)
    if b"coproc" not in data:
        return tree
    while (found := _first_coproc(tree.root_node, source)) is not None:
        start = source.char_of(found.start_byte)
        if len(coprocs) >= MAX_COPROCS:
            raise Unreadable(
                f"the text holds more than {MAX_COPROCS} `coproc` keywords, which the readers "
                "do not read",
                start,
            )
        mark = coproc_keyword(source.text, start)
        body = mark.end
        while source.text[body : body + 1] in (" ", "\t"):
            body += 1
        coprocs[body] = mark
        lo, hi = source.byte_of(mark.start), source.byte_of(mark.end)
        data = data[:lo] + b" " * (hi - lo) + data[hi:]
        tree = _parse(data, source)
    return tree


def _first_coproc(root: tree_sitter.Node, source: Source) -> tree_sitter.Node | None:
    """The leftmost command name tree-sitter read as the unquoted word ``coproc``, first in its command."""
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "command":
            first = next((c for c in node.children if c.type not in IGNORED), None)
            if (
                first is not None
                and first.type == "command_name"
                and first.end_byte - first.start_byte == 6
                and source.data[first.start_byte : first.end_byte] == b"coproc"
            ):
                return first
        stack.extend(reversed(node.children))
    return None


def coproc_keyword(text: str, at: int) -> CoprocMark:
    """
    The ``coproc`` keyword at ``at`` and the name written after it, by bash's rule.

    bash takes the word after ``coproc`` as the name when a compound command
    follows it; the readers admit a name (an identifier, unquoted) before a
    group or a subshell, and no name before anything else — the body is then
    a simple command, named ``COPROC``. A form whose reading depends on more
    (no blank after the keyword, a name right before ``(``, ``((``) is refused.

    Raises:
        Unreadable: A form the readers do not read.
    """
    after = at + len("coproc")
    if text[after : after + 1] not in (" ", "\t"):
        raise Unreadable(
            f"the `coproc` at offset {at} is not followed by a blank, which the readers do not read",
            at,
        )
    index = after
    while text[index : index + 1] in (" ", "\t"):
        index += 1
    name = NAME.match(text, index)
    if name is not None and name.group() in RESERVED_WORDS:
        # `coproc if { …; }` is a syntax error, `coproc time { …; }` names one `time`.
        raise Unreadable(
            f"the `coproc` at offset {at} is followed by the reserved word "
            f"`{name.group()}`, which the readers do not read",
            at,
        )
    if name is not None:
        follows = name.end()
        while text[follows : follows + 1] in (" ", "\t"):
            follows += 1
        opener = text[follows : follows + 2]
        if opener[:1] == "(" and (follows == name.end() or opener == "(("):
            raise Unreadable(
                f"the `coproc` at offset {at} is followed by a name and a parenthesis the "
                "readers do not read",
                at,
            )
        if follows > name.end() and (
            opener[:1] == "(" or (opener[:1] == "{" and opener[1:] in (" ", "\t", "\n"))
        ):
            return CoprocMark(at, name.end(), name.group(), named=True)
    return CoprocMark(at, after, "COPROC", named=False)


class _Reader:
    def __init__(
        self,
        source: Source,
        budget: ReadingBudget,
        heredocs: tuple[HeredocSpan, ...] = (),
        coprocs: dict[int, CoprocMark] | None = None,
        known: WordMemo | None = None,
    ) -> None:
        self.source = source
        self.ascii = source.ascii  # read once: `start` and `end` ask for every node
        self.coprocs = {} if coprocs is None else coprocs
        self.subs: dict[int, SubEntry] = {}
        self.scanner = WordScanner(source, self.subs, READER, budget=budget, known=known)
        self.heredocs = {heredoc.start: heredoc for heredoc in heredocs}
        self.body_ends = {heredoc.body_start: heredoc.end for heredoc in heredocs}
        self.used_heredocs: set[int] = set()
        self.depth = 0

    # ── helpers ──

    def char(self, byte_offset: int) -> int:
        return self.source.char_of(byte_offset)

    def start(self, node: tree_sitter.Node) -> int:
        if self.ascii:
            return node.start_byte
        return self.source.char_of(node.start_byte)

    def end(self, node: tree_sitter.Node) -> int:
        if self.ascii:
            return node.end_byte
        return self.source.char_of(node.end_byte)

    def unexpected(self, node: tree_sitter.Node, where: str) -> Unreadable:
        at = self.start(node)
        return Unreadable(f"tree-sitter produced a {node.type!r} node {where} at offset {at}", at)

    def syntax_error(self, root: tree_sitter.Node) -> Unreadable:
        stack = [root]
        while stack:
            node = stack.pop()
            if node.is_missing:
                at = self.start(node)
                return Unreadable(f"tree-sitter expected {node.type!r} at offset {at}", at)
            if node.is_error:
                at = self.start(node)
                return Unreadable(f"tree-sitter found a syntax error at offset {at}", at)
            if node.has_error:
                stack.extend(reversed(node.children))
        return Unreadable("tree-sitter found a syntax error", 0)  # pragma: no cover

    def enter(self, node: tree_sitter.Node) -> None:
        self.depth += 1
        if self.depth > MAX_NESTING:
            at = self.start(node)
            raise Unreadable(f"the text nests deeper than {MAX_NESTING} levels at offset {at}", at)

    # ── sequences ──

    def sequence(self, nodes: list[tree_sitter.Node]) -> tuple[Statement, ...]:
        tokens: list[Token] = []
        redirects: list[tree_sitter.Node] = []
        for node in [*nodes, None]:
            if node is not None and node.type in REDIRECT_NODES:
                redirects.append(node)
                continue
            if redirects:
                tokens.append(self.redirects_only(redirects))
                redirects = []
            if node is not None:
                self.flatten(node, tokens)
        return assemble(tokens, self.source, READER, self.coprocs)

    def check_coprocs(self) -> None:
        """Every ``coproc`` blanked must be one whose body tree-sitter read right after it."""
        if self.coprocs:
            at = min(mark.start for mark in self.coprocs.values())
            raise Unreadable(
                f"tree-sitter read no command right after the `coproc` at offset {at}", at
            )

    def redirects_only(self, nodes: list[tree_sitter.Node]) -> CmdToken:
        """
        A command of redirects alone, which tree-sitter leaves without a command node.

        ``$(<file)`` is the common one: bash reads the file as the
        substitution's output, without running anything.
        """
        redirects = tuple(self.redirect(node) for node in nodes)
        start, end = self.start(nodes[0]), self.end(nodes[-1])
        command = SimpleCommand(
            span=self.source.span(start, end), redirects=redirects, assignments=(), words=()
        )
        return CmdToken(command, start, self.extent(command, nodes[-1]))

    def flatten(self, node: tree_sitter.Node, out: list[Token]) -> None:
        # Iterative: lists nest left-deep and may be thousands of levels deep.
        stack = [node]
        while stack:
            item = stack.pop()
            kind = item.type
            if kind in IGNORED:
                continue
            if kind in ("list", "pipeline"):
                stack.extend(reversed(item.children))
            elif kind in SEQUENCE_OPERATORS:
                out.append(OpToken(kind, self.start(item), self.end(item)))
            elif kind == "negated_command":
                children = item.children
                if not children or children[0].type != "!":
                    raise self.unexpected(item, "without its `!`")
                out.append(NegToken(self.start(children[0]), self.end(children[0])))
                stack.extend(reversed(children[1:]))
            elif kind == "redirected_statement":
                self.redirected(item, out)
            elif kind == "command" and self.time_keyword(item):
                self.timed(item, out)
            elif kind in STATEMENT_NODES:
                command = self.command(item)
                out.append(CmdToken(command, self.start(item), self.extent(command, item)))
            else:
                raise self.unexpected(item, "where a command belongs")

    def time_keyword(self, node: tree_sitter.Node) -> bool:
        """
        True when a command tree-sitter read starts with the ``time`` keyword.

        tree-sitter has no ``time``: it reads ``time -p ls | wc`` as a command
        named ``time`` piped into ``wc``. bash reads the unquoted word
        ``time`` first in a command as its keyword, timing the whole
        pipeline; after an assignment or a redirect (``A=1 time ls``) it is a
        program's name, and tree-sitter's command name then is not the
        command's first child. Where bash does not take the word as its
        keyword though it is first (``ls | time wc``), `assemble` refuses the
        `TimeToken` that stands inside a pipeline.
        """
        children = [c for c in node.children if c.type not in IGNORED]
        if not children or children[0].type != "command_name":
            return False
        first = children[0]
        return self.source.slice(self.start(first), self.end(first)) == "time"

    def timed(self, node: tree_sitter.Node, out: list[Token]) -> None:
        """
        ``time [-p] [--] [!] COMMAND``: the keyword (a `TimeToken`), then what it times.

        The words after the keyword are read again as the command they are
        in bash; a word there that would make bash read something else (a
        keyword, a compound command, an option ``time`` does not take, an
        assignment) makes the reading unmeasured.
        """
        children = [c for c in node.children if c.type not in IGNORED]
        time_end = self.end(children[0])
        index = 1
        for option in ("-p", "--"):
            if index < len(children) and self.text_of(children[index]) == option:
                time_end = self.end(children[index])
                index += 1
        negation = None
        if index < len(children) and self.text_of(children[index]) == "!":
            negation = children[index]
            index += 1
        rest = children[index:]
        if not rest:
            raise Unreadable(
                f"the `time` at offset {self.start(node)} times no command, which the readers "
                "do not read",
                self.start(node),
            )
        head = rest[0]
        text = self.text_of(head)
        if (
            head.type not in WORD_NODES
            or text in RESERVED_WORDS
            or text.startswith("-")
            or split_assignment(text) is not None
        ):
            raise Unreadable(
                f"the `time` at offset {self.start(node)} is followed by {_show(text)}, "
                "which the readers do not read there",
                self.start(head),
            )
        out.append(TimeToken(self.start(node), time_end))
        if negation is not None:
            out.append(NegToken(self.start(negation), self.end(negation)))
        command = self.simple_command(node, rest)
        out.append(CmdToken(command, self.start(head), self.extent(command, node)))

    def text_of(self, node: tree_sitter.Node) -> str:
        return self.source.slice(self.start(node), self.end(node))

    def extent(self, command: Command, node: tree_sitter.Node) -> int:
        """Where a command ends: past the terminator of any heredoc it reads, else its node's end."""
        return max([self.end(node), *(self.terminator_end(r) for r in command.redirects)])

    def terminator_end(self, redirect: Redirect) -> int:
        """Past a heredoc redirect's terminator line (-1 for any other redirect)."""
        if redirect.heredoc is None:
            return -1
        return self.body_ends[redirect.heredoc.body_span.start]

    def redirected(self, node: tree_sitter.Node, out: list[Token]) -> None:
        body = node.child_by_field_name("body")
        tokens: list[Token] = []
        if body is not None:
            self.flatten(body, tokens)
        else:
            empty = SimpleCommand(
                span=self.source.span(self.start(node), self.start(node)),
                redirects=(),
                assignments=(),
                words=(),
            )
            tokens.append(CmdToken(empty, self.start(node), self.start(node)))
        redirects: list[Redirect] = []
        if not tokens or not isinstance(tokens[-1], CmdToken):
            raise self.unexpected(node, "with redirects that follow no command")
        last = tokens[-1]
        extent = last.end
        spilled: list[Word] = []
        for child in node.children:
            if child.type in IGNORED or (body is not None and child.id == body.id):
                continue
            if child.type in REDIRECT_NODES:
                redirect, spill = self.redirect_with_spill(child)
                redirects.append(redirect)
                if spill and not (isinstance(last.command, SimpleCommand) and last.command.words):
                    raise self.unexpected(child, "with an unexpected target")
                spilled.extend(self.words(spill))
            else:
                raise self.unexpected(child, "among redirects")
        extent = max(
            [
                extent,
                *(r.span.end for r in redirects),
                *(w.span.end for w in spilled),
                *(self.terminator_end(r) for r in redirects),
            ]
        )
        command = msgspec.structs.replace(
            last.command, redirects=last.command.redirects + tuple(redirects)
        )
        if spilled and isinstance(command, SimpleCommand):
            command = msgspec.structs.replace(command, words=command.words + tuple(spilled))
        tokens[-1] = CmdToken(command, last.start, extent)
        out.extend(tokens)

    # ── commands ──

    def command(self, node: tree_sitter.Node) -> Command:
        kind = node.type
        span = self.source.span(self.start(node), self.end(node))
        if kind == "command":
            return self.simple_command(node)
        if kind in ("declaration_command", "unset_command"):
            arguments = []
            for index, child in enumerate(node.children):
                if child.type in IGNORED:
                    continue
                if index == 0 or child.type in DECLARATION_ARGUMENTS:
                    arguments.append(child)
                else:
                    raise self.unexpected(child, f"inside {kind}")
            return SimpleCommand(
                span=span, redirects=(), assignments=(), words=tuple(self.words(arguments))
            )
        if kind == "variable_assignment":
            return SimpleCommand(
                span=span, redirects=(), assignments=(self.assignment(node),), words=()
            )
        if kind == "variable_assignments":
            assignments = []
            for child in node.children:
                if child.type != "variable_assignment":
                    raise self.unexpected(child, "among assignments")
                assignments.append(self.assignment(child))
            return SimpleCommand(span=span, redirects=(), assignments=tuple(assignments), words=())
        if kind == "subshell":
            return Subshell(span=span, redirects=(), body=self.body(node, "(", ")"))
        if kind == "compound_statement":
            first = node.children[0].type if node.children else ""
            if first == "((":
                return self.arith_command(node)
            if first != "{":
                raise self.unexpected(node, f"opened by {first!r}")
            return Group(span=span, redirects=(), body=self.body(node, "{", "}"))
        if kind == "if_statement":
            return self.if_statement(node)
        if kind == "for_statement":
            return self.for_statement(node)
        if kind == "c_style_for_statement":
            return self.arith_for(node)
        if kind == "while_statement":
            return self.while_statement(node)
        if kind == "case_statement":
            return self.case_statement(node)
        if kind == "function_definition":
            return self.function(node)
        if kind == "test_command":
            return self.test_command(node)
        raise self.unexpected(node, "where a command belongs")

    def body(
        self, node: tree_sitter.Node, opener: str, closer: str, *, level: bool = True
    ) -> tuple[Statement, ...]:
        """Read the statements between ``opener`` and ``closer``; a new nesting level when ``level``."""
        children = node.children
        if len(children) < 2 or children[0].type != opener or children[-1].type != closer:
            raise self.unexpected(node, f"not enclosed in {opener}{closer}")
        if level:
            self.enter(node)
        statements = self.sequence(children[1:-1])
        if level:
            self.depth -= 1
        return statements

    def simple_command(
        self, node: tree_sitter.Node, timed: list[tree_sitter.Node] | None = None
    ) -> SimpleCommand:
        """
        A simple command; ``timed``: the children after a ``time`` keyword, the first naming it.
        """
        assignments: list[Assignment] = []
        pending: list[tree_sitter.Node] = []
        words: list[Word] = []
        redirects: list[Redirect] = []
        named = timed is not None
        first = next((c for c in node.children if c.type not in IGNORED), None)
        if timed is None and first is not None and self.text_of(first) == "coproc":
            # Every `coproc` of the text was blanked (`_blank_coprocs`); this
            # one is in a copy read for a heredoc body's substitutions.
            raise Unreadable(
                f"the `coproc` at offset {self.start(first)} is in a heredoc body, where the "
                "readers do not read it",
                self.start(first),
            )
        for child in node.children if timed is None else timed:
            kind = child.type
            if kind in IGNORED:
                continue
            if kind == "variable_assignment" and not named:
                assignments.append(self.assignment(child))
            elif kind == "command_name":
                inner = [c for c in child.children if c.type not in IGNORED]
                if named or len(inner) != 1 or inner[0].type not in WORD_NODES:
                    raise self.unexpected(child, "as a command name")
                pending.append(inner[0])
                named = True
            elif kind in WORD_NODES and named:
                pending.append(child)
            elif kind in ("file_redirect", "herestring_redirect"):
                words.extend(self.words(pending))
                pending = []
                redirect, spill = self.redirect_with_spill(child)
                redirects.append(redirect)
                if spill and not named:
                    raise self.unexpected(
                        child, "with words after its target before the command name"
                    )
                pending.extend(spill)
            else:
                raise self.unexpected(child, "inside a command")
        words.extend(self.words(pending))
        if (
            words
            and redirects
            and words[0].text in RESERVED_WORDS
            and redirects[0].span.start < words[0].span.start
        ):
            # `> f time k`: bash runs the program `time`, but prints the command
            # back as `time k > f`, where `time` is its keyword.
            raise Unreadable(
                f"the program {_show(words[0].text)} at offset {words[0].span.start} follows "
                "a redirect, and bash prints it back as its keyword",
                words[0].span.start,
            )
        start = self.start(node) if timed is None else self.start(timed[0])
        return SimpleCommand(
            span=self.source.span(start, self.end(node)),
            redirects=tuple(redirects),
            assignments=tuple(assignments),
            words=tuple(words),
        )

    def if_statement(self, node: tree_sitter.Node) -> If:
        clauses: list[IfClause] = []
        else_body: tuple[Statement, ...] | None = None
        self.enter(node)
        condition: list[tree_sitter.Node] = []
        body: list[tree_sitter.Node] = []
        target = condition
        for child in node.children:
            kind = child.type
            if kind in ("if", "elif"):
                target = condition
            elif kind == "then":
                target = body
            elif kind in ("elif_clause", "else_clause", "fi"):
                if condition or body:
                    clauses.append(
                        IfClause(condition=self.sequence(condition), body=self.sequence(body))
                    )
                    condition, body = [], []
                if kind == "elif_clause":
                    sub_condition: list[tree_sitter.Node] = []
                    sub_body: list[tree_sitter.Node] = []
                    sub_target = sub_condition
                    for grand in child.children:
                        if grand.type == "elif":
                            continue
                        if grand.type == "then":
                            sub_target = sub_body
                            continue
                        sub_target.append(grand)
                    clauses.append(
                        IfClause(
                            condition=self.sequence(sub_condition), body=self.sequence(sub_body)
                        )
                    )
                elif kind == "else_clause":
                    else_body = self.sequence([c for c in child.children if c.type != "else"])
            else:
                target.append(child)
        self.depth -= 1
        if not clauses:
            raise self.unexpected(node, "without a condition")
        return If(
            span=self.source.span(self.start(node), self.end(node)),
            redirects=(),
            clauses=tuple(clauses),
            else_body=else_body,
        )

    def do_group(
        self, node: tree_sitter.Node | None, owner: tree_sitter.Node
    ) -> tuple[Statement, ...]:
        if node is None:
            raise self.unexpected(owner, "without a body")
        # The loop entered its nesting level already: its body is not another
        # one (bashlex counts a loop once, and MAX_NESTING means 64 loops).
        if node.type == "do_group":
            return self.body(node, "do", "done", level=False)
        if node.type == "compound_statement":
            return self.body(node, "{", "}", level=False)
        raise self.unexpected(node, "as a loop body")

    def for_statement(self, node: tree_sitter.Node) -> For:
        children = node.children
        if not children or children[0].type not in ("for", "select"):
            raise self.unexpected(
                node, f"opened by {children[0].type if children else 'nothing'!r}"
            )
        variable = node.child_by_field_name("variable")
        if variable is None:
            raise self.unexpected(node, "without a variable")
        items: list[tree_sitter.Node] | None = None
        for child in children:
            if child.type == "in":
                items = []
            elif items is not None and child.type in WORD_NODES:
                items.append(child)
            elif child.type not in (
                children[0].type,
                "variable_name",
                ";",
                "do_group",
                "in",
                "comment",
                "compound_statement",
            ):
                raise self.unexpected(child, "inside a for loop")
        self.enter(node)
        body = self.do_group(node.child_by_field_name("body"), node)
        self.depth -= 1
        return For(
            span=self.source.span(self.start(node), self.end(node)),
            redirects=(),
            variable=self.source.slice(self.start(variable), self.end(variable)),
            items=None if items is None else tuple(self.words(items)),
            body=body,
            select=children[0].type == "select",
        )

    def arith_for(self, node: tree_sitter.Node) -> ArithFor:
        children = node.children
        marks = [c for c in children if c.type in ("((", ";", "))")]
        kinds = [c.type for c in marks]
        if kinds != ["((", ";", ";", "))"] and kinds != ["((", ";", ";", "))", ";"]:
            raise self.unexpected(node, "with an unexpected header")
        for child in children:
            if child.type not in (
                "for",
                "((",
                ";",
                "))",
                "do_group",
                "compound_statement",
                "comment",
            ):
                self.register_subs(child)
        expressions: list[Arithmetic] = []
        for left, right in itertools.pairwise(marks):
            start, end = self.end(left), self.start(right)
            if self.source.slice(start, end).strip():
                expressions.append(self.scanner.arithmetic(start, end))
        self.enter(node)
        body = self.do_group(node.child_by_field_name("body"), node)
        self.depth -= 1
        return ArithFor(
            span=self.source.span(self.start(node), self.end(node)),
            redirects=(),
            expressions=tuple(expressions),
            body=body,
        )

    def while_statement(self, node: tree_sitter.Node) -> While:
        children = node.children
        if not children or children[0].type not in ("while", "until"):
            raise self.unexpected(node, "without while/until")
        body_node = node.child_by_field_name("body")
        condition = [c for c in children[1:] if body_node is None or c.id != body_node.id]
        self.enter(node)
        cond = self.sequence(condition)
        body = self.do_group(body_node, node)
        self.depth -= 1
        return While(
            span=self.source.span(self.start(node), self.end(node)),
            redirects=(),
            until=children[0].type == "until",
            condition=cond,
            body=body,
        )

    def case_statement(self, node: tree_sitter.Node) -> Case:
        subject: Word | None = None
        items: list[CaseItem] = []
        self.enter(node)
        for child in node.children:
            kind = child.type
            if kind in ("case", "in", "esac", ";", "comment"):
                continue
            if kind == "case_item":
                items.append(self.case_item(child))
            elif kind in WORD_NODES and subject is None:
                subject = self.word(child)
            else:
                raise self.unexpected(child, "inside a case statement")
        self.depth -= 1
        if subject is None:
            raise self.unexpected(node, "without a subject")
        return Case(
            span=self.source.span(self.start(node), self.end(node)),
            redirects=(),
            subject=subject,
            items=tuple(items),
        )

    def case_item(self, node: tree_sitter.Node) -> CaseItem:
        patterns: list[Word] = []
        body: list[tree_sitter.Node] = []
        terminator: str | None = None
        in_body = False
        head_end = self.start(node)
        for child in node.children:
            kind = child.type
            if not in_body:
                if kind == ")":
                    in_body = True
                    head_end = self.end(child)
                elif kind in WORD_NODES:
                    patterns.append(self.word(child))
                elif kind not in ("|", "(", "comment"):
                    raise self.unexpected(child, "among case patterns")
            elif kind in (";;", ";&", ";;&"):
                terminator = kind
            else:
                body.append(child)
        if not in_body:
            raise self.unexpected(node, "without its `)`")
        return CaseItem(
            patterns=tuple(patterns),
            body=self.sequence(body),
            terminator=terminator,
            head=self.source.span(self.start(node), head_end),
            span=self.source.span(self.start(node), self.end(node)),
        )

    def function(self, node: tree_sitter.Node) -> Function:
        name = node.child_by_field_name("name")
        body = node.child_by_field_name("body")
        if name is None or body is None:
            raise self.unexpected(node, "without a name or body")
        redirects: list[Redirect] = []
        for child in node.children:
            if child.type in ("file_redirect", "herestring_redirect"):
                redirects.append(self.redirect(child))
            elif child.type == "heredoc_redirect":
                raise self.unexpected(child, "on a function definition")
        self.enter(node)
        command = self.command(body)
        self.depth -= 1
        if redirects:
            command = msgspec.structs.replace(
                command, redirects=command.redirects + tuple(redirects)
            )
        return Function(
            span=self.source.span(self.start(node), self.end(node)),
            redirects=(),
            name=self.source.slice(self.start(name), self.end(name)),
            body=command,
        )

    def arith_command(self, node: tree_sitter.Node) -> ArithCommand:
        children = node.children
        if children[-1].type != "))":
            raise self.unexpected(node, "not closed by ))")
        for child in children[1:-1]:
            self.register_subs(child)
        start, end = self.end(children[0]), self.start(children[-1])
        return ArithCommand(
            span=self.source.span(self.start(node), self.end(node)),
            redirects=(),
            expression=self.scanner.arithmetic(start, end),
        )

    def test_command(self, node: tree_sitter.Node) -> Command:
        children = node.children
        opener = children[0].type if children else ""
        if opener not in ("[", "[["):
            raise self.unexpected(node, f"opened by {opener!r}")
        leaves: list[tree_sitter.Node] = []
        stack = list(reversed(children))
        while stack:
            item = stack.pop()
            if item.type in IGNORED:
                continue
            if item.type in TEST_CONTAINERS:
                stack.extend(reversed(item.children))
            elif item.type in TEST_LEAVES or not item.is_named:
                leaves.append(item)
            else:
                raise self.unexpected(item, "inside a test")
        words = self.words(leaves)
        span = self.source.span(self.start(node), self.end(node))
        if opener == "[":
            return SimpleCommand(span=span, redirects=(), assignments=(), words=tuple(words))
        test = Test(span=span, redirects=(), operands=tuple(words[1:-1]))
        check_conditional(test, self.source.text)
        return test

    # ── words, assignments, redirects ──

    def register_subs(self, node: tree_sitter.Node) -> None:
        """Parse every substitution under ``node`` (not under another substitution)."""
        stack = [node]
        while stack:
            item = stack.pop()
            if item.type in SUBSTITUTION_NODES:
                self.substitution(item)
            elif item.child_count:
                stack.extend(item.children)

    def substitution(self, node: tree_sitter.Node) -> None:
        children = node.children
        opener = children[0].type if children else ""
        kind: SubKind
        if opener == "$(":
            kind, closer = "dollar", ")"
        elif opener == "`":
            kind, closer = "backtick", "`"
        elif opener == "<(":
            kind, closer = "in", ")"
        elif opener == ">(":
            kind, closer = "out", ")"
        else:
            raise self.unexpected(node, f"opened by {opener!r}")
        if len(children) < 2 or children[-1].type != closer:
            raise self.unexpected(node, "not closed")
        text = self.source.slice(self.start(node), self.end(node))
        if kind == "dollar" and text.startswith("$((") and text.endswith("))"):
            # In heredoc bodies tree-sitter reads ``$((…))`` as a substitution
            # of a subshell; bash reads arithmetic first. Leave it to the word
            # scanner (which requires the closing ``))``), keeping only the
            # substitutions inside it.
            for child in children[1:-1]:
                self.register_subs(child)
            return
        self.enter(node)
        body = self.sequence(children[1:-1])
        self.depth -= 1
        self.subs[self.start(node)] = SubEntry(self.end(node), kind, body)

    def word(self, node: tree_sitter.Node) -> Word:
        self.register_subs(node)
        return self.scanner.word(self.start(node), self.end(node))

    def words(self, nodes: list[tree_sitter.Node]) -> list[Word]:
        """
        Read argument nodes as bash words.

        tree-sitter sometimes splits one bash word into adjacent nodes
        (``a/`b`/c``, ``$"…"``); nodes with nothing between them are one word,
        because only blanks and operators separate words in bash.
        """
        words: list[Word] = []
        group: list[tree_sitter.Node] = []
        for node in nodes:
            if group and node.start_byte != group[-1].end_byte:
                words.append(self.word_of(group))
                group = []
            group.append(node)
        if group:
            words.append(self.word_of(group))
        return words

    def word_of(self, group: list[tree_sitter.Node]) -> Word:
        for node in group:
            self.register_subs(node)
        return self.scanner.word(self.start(group[0]), self.end(group[-1]))

    def assignment(self, node: tree_sitter.Node) -> Assignment:
        start, end = self.start(node), self.end(node)
        text = self.source.slice(start, end)
        split = split_assignment(text)
        if split is None:
            raise self.unexpected(node, "that is not an assignment")
        name, subscript_bounds, append, value_at = split
        self.register_subs(node)
        subscript = None
        if subscript_bounds is not None:
            subscript = self.scanner.arithmetic(
                start + subscript_bounds[0], start + subscript_bounds[1]
            )
        value_node = node.child_by_field_name("value")
        array: tuple[Word, ...] | None = None
        value: Word | None = None
        if value_node is not None and value_node.type == "array":
            elements = []
            for child in value_node.children:
                if child.type in ("(", ")", "comment"):
                    continue
                if child.type not in WORD_NODES:
                    raise self.unexpected(child, "inside an array")
                elements.append(self.scanner.word(self.start(child), self.end(child)))
            array = tuple(elements)
        elif start + value_at < end:
            value = self.scanner.word(start + value_at, end, assignment=True)
        return Assignment(
            span=self.source.span(start, end),
            name=name,
            subscript=subscript,
            append=append,
            value=value,
            array=array,
        )

    def redirect(self, node: tree_sitter.Node) -> Redirect:
        redirect, spill = self.redirect_with_spill(node)
        if spill:
            raise self.unexpected(node, "with an unexpected target")
        return redirect

    def redirect_with_spill(
        self, node: tree_sitter.Node
    ) -> tuple[Redirect, list[tree_sitter.Node]]:
        """
        Read a redirect; also return the nodes tree-sitter wrongly made extra targets.

        In ``cmd < in arg`` tree-sitter reads ``arg`` as a second target of
        ``<``; in bash a redirect takes one word, and the words after it are the
        command's arguments. The caller decides whether arguments may stand there.
        """
        fd: str | None = None
        operator: str | None = None
        target_nodes: list[tree_sitter.Node] = []
        for child in node.children:
            kind = child.type
            if kind in IGNORED:
                continue
            if kind == "file_descriptor":
                fd = self.source.slice(self.start(child), self.end(child))
            elif operator is None and (kind in FILE_REDIRECT_OPERATORS or kind == "<<<"):
                operator = kind
            elif kind in WORD_NODES and operator is not None:
                target_nodes.append(child)
            else:
                raise self.unexpected(child, "inside a redirect")
        if operator is None:
            raise self.unexpected(node, "without an operator")
        heredoc = self.heredocs.get(self.start(node) + (len(fd) if fd is not None else 0))
        first = target_nodes[:1]
        for candidate in target_nodes[1:]:
            if candidate.start_byte != first[-1].end_byte:
                break
            first.append(candidate)
        spill = target_nodes[len(first) :]
        closes = operator.endswith("-")
        if (closes and first) or (not closes and not first):
            raise self.unexpected(node, "with an unexpected target")
        if heredoc is not None:
            if (
                operator != "<"
                or not first
                or (self.start(first[0]), self.end(first[-1]))
                != (heredoc.word_start, heredoc.word_end)
            ):
                raise self.unexpected(node, "where the heredoc reader found a heredoc")
            return self.heredoc_redirect(node, fd, heredoc), spill
        target = self.word_of(first) if first else None
        end = self.end(first[-1]) if first else self.end(node)
        redirect = Redirect(
            span=self.source.span(self.start(node), end),
            fd=fd,
            operator=operator,
            target=target,
        )
        return redirect, spill

    def heredoc_redirect(
        self, node: tree_sitter.Node, fd: str | None, found: HeredocSpan
    ) -> Redirect:
        """The heredoc redirect the heredoc reader found where tree-sitter read a ``<``."""
        self.used_heredocs.add(found.start)
        parts: tuple[Part, ...] = ()
        if not found.quoted:
            parts = self.scanner.heredoc_body(found.body_start, found.body_end)
        heredoc = Heredoc(
            operator="<<-" if found.operator == "<<-" else "<<",
            delimiter=found.delimiter,
            delimiter_text=self.source.slice(found.word_start, found.word_end),
            quoted=found.quoted,
            body_span=self.source.span(found.body_start, found.body_end),
            body=self.source.slice(found.body_start, found.body_end),
            parts=parts,
        )
        return Redirect(
            span=self.source.span(self.start(node), found.word_end),
            fd=fd,
            operator=heredoc.operator,
            target=self.scanner.word(found.word_start, found.word_end),
            heredoc=heredoc,
        )

    def body_substitutions(self) -> None:
        """
        Parse the substitutions of the unquoted heredoc bodies, from copies holding only them.

        A substitution in a body may hold a heredoc of its own, whose body may
        hold substitutions: each level is found first (the heredoc reader on
        a copy holding only the level above's substitutions), then parsed from
        the deepest up, so a body's substitutions are known before the
        heredoc holding them is read.
        """
        levels: list[tuple[list[tuple[int, int]], tuple[HeredocSpan, ...]]] = []
        current = [heredoc for heredoc in self.heredocs.values() if not heredoc.quoted]
        while current:
            spans = [
                span
                for heredoc in current
                for span in body_substitutions(self.source.text, heredoc)
            ]
            if not spans:
                break
            if len(levels) >= MAX_NESTING:
                raise Unreadable(f"the text nests deeper than {MAX_NESTING} levels", spans[0][0])
            nested = find_heredocs(blank_outside(self.source.text, spans))
            for heredoc in nested:
                self.heredocs[heredoc.start] = heredoc
                self.body_ends[heredoc.body_start] = heredoc.end
            levels.append((spans, nested))
            current = [heredoc for heredoc in nested if not heredoc.quoted]
        for spans, nested in reversed(levels):
            data = for_tree_sitter(self.source, nested, only_substitutions(self.source, spans))
            root = _parse(data, self.source).root_node
            if root.has_error:
                raise self.syntax_error(root)
            for child in root.children:
                self.register_subs(child)

    def check_heredocs(self) -> None:
        """Every heredoc the heredoc reader found must be one tree-sitter read a redirect for."""
        missed = sorted(set(self.heredocs) - self.used_heredocs)
        if missed:
            raise Unreadable(
                f"tree-sitter read no redirect where the heredoc at offset {missed[0]} starts",
                missed[0],
            )
