"""
The bashlex reader: bash text → neutral syntax tree, through bashlex 0.18.

The only module that imports ``bashlex``; its nodes never leave this file.
Like the tree-sitter reader it walks the whole tree against explicit lists of
node kinds, and anything else is `Unreadable`.

bashlex has known defects this module repairs, each pinned by tests and each
only for the exact release the project depends on (``bashlex==0.18``):

* **Quoted heredoc delimiters.** bashlex compares body lines against the
  delimiter *as written* (``'EOF'`` with its quotes), so every quoted heredoc
  raises. `_read_heredoc` replaces its heredoc reader: the delimiter is
  compared after quote removal, and a quoted delimiter keeps bash's semantics
  for the body — no backslash-newline joining — so a body line ending in ``\\``
  cannot swallow the terminator and hide the commands after it.
* **Substitutions it never parses**: inside ``${x:-$(…)}``, in unquoted heredoc
  bodies, and in words its quote removal misreads (``'x'$(rm -rf ~)'y'``). The
  project's word scanner finds them and this module parses each with bashlex's
  own command-substitution parser; tree-sitter must then still agree.
* **Heredocs inside compound commands** (``for``/``while``/``if`` bodies,
  groups): bashlex read their bodies one line late, tokenizing the first body
  line as a command. `_gather_after_lookahead` reads them where they start.
* **The end of a substitution that holds a heredoc or ends in blanks**, which
  bashlex reports before the heredoc's body or the blanks — and then went on
  reading the rest of the substitution (the body, a quoted heredoc's ``$(``
  too) as more of the word (`_substitution_ends_at_its_parenthesis`).
* **No bound on its work**: on some inputs it asks for tokens past the end of
  the text forever, growing without limit. Every token is charged to the
  reading (`_metered`), so it stops at a budget proportional to the text or
  when the reading's budget (`ReadingBudget`) is spent, whichever comes first.
* **``&&`` and ``||`` inside ``$( )``** made it raise: the parser tables it
  patches so that ``)`` ends a substitution are patched for the states after
  ``&&`` and ``||`` too (`_close_lists_in_substitutions`).
* **A loop condition ended by a newline** (``while read x`` and ``do`` on the
  next line) made it raise AssertionError (`_condition_as_list`).
* **A single quote inside a word** (``x='a`b'``, ``k a'$(b'``) was taken for
  its own closing quote, so a backtick or ``$(`` between the quotes made it
  raise, or became a substitution bash never runs
  (`_single_quotes_are_plain_text`).
* **Every ``elif`` after the first**, which bashlex nests inside a reserved
  word node whose ``word`` is a list (`_spliced`).

bashlex itself never sees anything but the source text (masked where the
masks say, single-quoted text blanked in its word expansion); its ``WordNode.word``
(whose quote removal is wrong in ~1 % of real commands) is never used.
"""

from __future__ import annotations

import contextlib
import importlib.metadata
import threading
from collections.abc import Iterator, Sequence
from typing import Any, Final

import bashlex
import bashlex.ast
import bashlex.errors
import bashlex.heredoc
import bashlex.parser
import bashlex.subst
import bashlex.tokenizer
import msgspec

from gateway._calls._text import shorten
from gateway._read._assemble import (
    CmdToken,
    CoprocMark,
    NegToken,
    OpToken,
    TimeToken,
    Token,
    assemble,
)
from gateway._read._heredocs import closing_parenthesis
from gateway._read._limits import (
    BASHLEX_TOKEN_FLOOR,
    BASHLEX_TOKENS_PER_CHAR,
    MAX_NESTING,
    UNLIMITED,
    ReadingBudget,
)
from gateway._read._masks import Mask, apply_masks
from gateway._read._source import Source
from gateway._read._tree import (
    ArithCommand,
    ArithFor,
    Assignment,
    Case,
    CaseItem,
    Command,
    For,
    Function,
    Group,
    Heredoc,
    If,
    IfClause,
    Part,
    Program,
    Redirect,
    SimpleCommand,
    Statement,
    Subshell,
    Test,
    While,
    Word,
)
from gateway._read._words import (
    SubEntry,
    SubKind,
    Unreadable,
    WordScanner,
    split_assignment,
    unquote_delimiter,
)

__all__ = ["BASHLEX_VERSION", "read_with_bashlex"]

READER: Final = "bashlex"
BASHLEX_VERSION: Final = "0.18"
"""The only bashlex release the repairs below are proven against."""

_INSTALLED: Final = importlib.metadata.version("bashlex")
_REPAIRED: bool = False

SEQUENCE_KINDS: Final = frozenset({"list", "pipeline", "command", "compound", "function"})
COMPOUND_KINDS: Final = frozenset({"if", "for", "while", "until"})
WORD_PART_KINDS: Final = frozenset(
    {"parameter", "tilde", "commandsubstitution", "processsubstitution"}
)
LIST_OPERATORS: Final = frozenset({";", "&", "&&", "||", "\n"})
REDIRECT_TYPES: Final = frozenset(
    {">", ">>", "<", "&>", "&>>", ">&", "<&", ">|", "<>", "<<<", "<<", "<<-"}
)


# ───────────────────────── the heredoc repair ─────────────────────────


def _read_line(tokenizer: Any, *, join: bool) -> str | None:
    """
    One line from bashlex's tokenizer, ending in a newline; ``None`` at the end of input.

    With ``join`` (an unquoted heredoc body), a line ending in an odd number
    of backslashes goes on on the next one, the backslash and the newline
    removed, as bash reads it (bashlex's own reader joined after an even
    number too: ``a\\\\`` and a newline is not a continuation).
    """
    text: str = tokenizer._shell_input_line  # noqa: SLF001 -- the repair reads bashlex's own input
    if tokenizer._eol_ungetc_lookahead is not None:  # noqa: SLF001
        buffer = [tokenizer._getc(join)]  # noqa: SLF001 -- the one pushed-back character
        rest = _read_line(tokenizer, join=join)
        return "".join(c for c in buffer if c is not None) + (rest or "\n")
    pieces: list[str] = []
    i: int = tokenizer._shell_input_line_index  # noqa: SLF001
    while True:
        end = text.find("\n", i)
        if end < 0:
            rest = text[i:]
            tokenizer._shell_input_line_index = len(text)  # noqa: SLF001
            if not rest and not pieces:
                return None
            return "".join(pieces) + rest + "\n"
        line = text[i:end]
        i = end + 1
        if join and (len(line) - len(line.rstrip("\\"))) % 2:
            pieces.append(line[:-1])
            continue
        tokenizer._shell_input_line_index = i  # noqa: SLF001
        return "".join(pieces) + line + "\n"


def _read_heredoc(tokenizer: Any, redirnode: Any, lineno: int, killleading: bool) -> str:  # noqa: FBT001 -- bashlex's signature
    """
    Replacement for ``bashlex.heredoc.makeheredoc``.

    Reads body lines until one equals the delimiter after quote removal (and,
    for ``<<-``, after leading tabs are stripped). Records on the heredoc node
    where the body starts and ends in the source, its delimiter and whether it
    was quoted, and where the terminator line ends.
    """
    del lineno
    raw = redirnode.output.word
    delimiter, quoted = unquote_delimiter(raw)
    start = tokenizer._shell_input_line_index  # noqa: SLF001
    document: list[str] = []
    terminator_end = line_start = start
    while True:
        line_start = tokenizer._shell_input_line_index  # noqa: SLF001
        line = _read_line(tokenizer, join=not quoted)
        if line is None:
            raise bashlex.errors.ParsingError(
                f"unterminated heredoc: no line reads {delimiter!r}",
                tokenizer._shell_input_line,  # noqa: SLF001
                tokenizer._shell_input_line_index,  # noqa: SLF001
            )
        check = line.lstrip("\t") if killleading else line
        if check[:-1] == delimiter:
            terminator_end = line_start + len(line.rstrip("\n"))
            break
        document.append(line)
    end = tokenizer._shell_input_line_index - 1  # noqa: SLF001
    heredoc = bashlex.ast.node(kind="heredoc", value="".join(document), pos=(start, end))
    # Lengths, not offsets: bashlex re-bases ``pos`` when it parses a later
    # line or a substitution from a slice of the source, and lengths survive that.
    heredoc.body_length = line_start - start
    heredoc.terminator_length = terminator_end - start
    heredoc.delimiter = delimiter
    heredoc.quoted = quoted
    redirnode.heredoc = heredoc
    if redirnode.pos[1] + 1 == start:
        redirnode.pos = (redirnode.pos[0], end)
    return heredoc.value  # type: ignore[no-any-return]


def _gather_after_lookahead(original: Any) -> Any:
    """
    Wrap bashlex's heredoc-redirection production so bodies are read at the right line.

    bashlex reads pending heredoc bodies when its tokenizer meets a newline.
    Inside a compound command the parser fetches that newline as lookahead
    *before* it reduces the ``<<WORD`` redirection, so nothing is pending yet,
    the body lines are tokenized as commands, and the body is read at a later
    newline. When the lookahead already taken is that newline, read the
    bodies now: the tokenizer stands right after it, where they begin.
    """

    def production(p: Any) -> None:
        original(p)
        lexer = p.lexer
        current = getattr(lexer, "_current_token", None)
        if current is not None and current.ttype == bashlex.tokenizer.tokentype.NEWLINE:
            bashlex.heredoc.gatherheredocuments(lexer)

    return production


# ───────────────────────── the work meter ─────────────────────────


class _Meter(threading.local):
    """The budget of the bashlex reading running on this thread (``limit < 0``: none)."""

    def __init__(self) -> None:
        self.limit = -1
        self.steps = 0
        self.budget = UNLIMITED


_METER: Final = _Meter()


def _metered(original: Any) -> Any:
    """
    Wrap bashlex's ``tokenizer.token`` so every token is charged to the running reading.

    bashlex is pure Python and a thread cannot interrupt it, so the bound sits
    in its own loop: every token any of its parsers reads (substitutions are
    parsed by parsers of their own) is one step, and past the reading's
    limit, or once its budget is spent, the next token raises instead. On some inputs
    bashlex asks for tokens past the end forever (``>(a#"")${`` and a
    newline): this is what stops it, in bounded time and memory.
    """

    def token(self: Any) -> Any:
        meter = _METER
        if meter.limit >= 0:
            meter.steps += 1
            if meter.steps > meter.limit:
                raise Unreadable(
                    f"bashlex reads more than {BASHLEX_TOKENS_PER_CHAR} tokens a character "
                    "of this text, over its budget",
                    0,
                )
            if not meter.steps & 63:
                overrun = meter.budget.overrun()
                if overrun is not None:
                    raise Unreadable(f"bashlex {overrun}", 0)
        return original(self)

    return token


def _close_lists_in_substitutions() -> None:
    """
    Let ``$( a && b )`` and ``$( a || b )`` end at their ``)``.

    bashlex ends a substitution's parse by patching its parser tables: in the
    states where a ``simple_list1`` may end, a ``)`` reduces instead of being
    an error. It patched the states reached through ``;`` and ``|`` only, so
    a ``)`` right after ``a && b`` or ``a || b`` is an error there. The same
    patch is made for the states after ``&&``, ``||``, ``&`` and ``;``
    wherever they stand, found from the tables by the grammar's own names,
    not by number.
    """
    tables = bashlex.parser.yaccparser
    rules = {str(production): index for index, production in enumerate(tables.productions)}
    pipeline = rules["simple_list1 -> pipeline_command"]
    lists = {
        "AND_AND": "simple_list1 -> simple_list1 AND_AND newline_list simple_list1",
        "OR_OR": "simple_list1 -> simple_list1 OR_OR newline_list simple_list1",
        "AMPERSAND": "simple_list1 -> simple_list1 AMPERSAND simple_list1",
        "SEMICOLON": "simple_list1 -> simple_list1 SEMICOLON simple_list1",
    }
    for actions in list(tables.action.values()):
        for operator, production in lists.items():
            shifted = actions.get(operator)
            if shifted is None or shifted <= 0:
                continue
            after = shifted
            if "newline_list" in production:
                after = tables.goto.get(shifted, {}).get("newline_list", -1)
            right = tables.goto.get(after, {})
            if "simple_list1" not in right or "pipeline_command" not in right:
                continue
            tables.action[right["simple_list1"]].setdefault("RIGHT_PAREN", -rules[production])
            tables.action[right["pipeline_command"]].setdefault("RIGHT_PAREN", -pipeline)


@contextlib.contextmanager
def _metering(length: int, budget: ReadingBudget) -> Iterator[None]:
    meter = _METER
    saved = meter.limit, meter.steps, meter.budget
    meter.limit = BASHLEX_TOKENS_PER_CHAR * length + BASHLEX_TOKEN_FLOOR
    meter.steps = 0
    meter.budget = budget
    try:
        yield
    finally:
        meter.limit, meter.steps, meter.budget = saved


def _condition_as_list(original: Any) -> Any:
    """
    Wrap bashlex's ``while``/``until`` production so a condition ended by a newline is read.

    bashlex asserts that a loop's condition is a list node; ``while read x``
    then a newline and ``do`` gives it the command itself, and it raises
    AssertionError. The command is given to it as a one-command list.
    """

    def production(p: Any) -> None:
        if len(p) == 6 and getattr(p[2], "kind", "list") != "list":
            p[2] = bashlex.ast.node(kind="list", parts=[p[2]], pos=p[2].pos)
        original(p)

    return production


def _substitution_ends_at_its_parenthesis(original: Any) -> Any:
    """
    Wrap bashlex's ``$( )`` / ``<( )`` body parser so it reports the body's real ``)``.

    bashlex parses a substitution's body with a parser of its own and takes
    the end of the last command inside as the body's end. When a heredoc body
    follows that command, or blanks stand before the ``)``, that is not where
    the substitution ends, and bashlex's word expansion then read on from
    there: the lines of the heredoc body became more of the word, and a
    ``$(`` in a quoted body (``"$(\ncat <<'EOF'\n$(\nEOF\n)"``) a
    substitution bash never sees. The end is moved past the last heredoc
    body and the blanks to the ``)``, so the word is read on from where bash
    reads on.
    """

    def parse(parserobj: Any, base: str, sindex: int) -> tuple[Any, int]:
        node, end = original(parserobj, base, sindex)
        j = max(end, _last_heredoc_end(node))
        while j < len(base) and base[j] in " \t\n":
            j += 1
        return node, j if base[j : j + 1] == ")" else end

    return parse


# What, met outside double quotes before a single quote, leaves the quote's
# place in bash's reading to a reading this plain scan does not make.
_NESTING_OPENERS: Final = ("`", "$(", "${", "$[", "$'", '$"', "<(", ">(")


def _plain_single_quotes(word: str) -> str:
    """
    ``word`` with the text inside its leading single quotes blanked (same length).

    Outside double quotes a single quote opens text bash reads as plain
    characters up to the next single quote. bashlex's word expansion takes
    the opening quote for the closing one and reads what follows as unquoted,
    so ``x='a`b'`` faulted (no closing backtick) and ``x=a'$(id)'`` gained a
    substitution bash never runs. Only the quotes met before anything that
    nests (a substitution, ``${``, ``$'``) are blanked; after one, the word
    is left as it is and read as before (a fault or a disagreement, never
    less than bash runs).
    """
    out = list(word)
    i = 0
    dquoted = False
    while i < len(word):
        c = word[i]
        if c == "\\":
            i += 2
            continue
        if word.startswith(_NESTING_OPENERS, i):
            break
        if c == '"':
            dquoted = not dquoted
        elif c == "'" and not dquoted:
            close = word.find("'", i + 1)
            if close < 0:
                break
            out[i + 1 : close] = "_" * (close - i - 1)
            i = close
        i += 1
    return "".join(out)


def _single_quotes_are_plain_text(original: Any) -> Any:
    """Wrap bashlex's word expansion so single-quoted text stays plain (`_plain_single_quotes`)."""

    def expand(parserobj: Any, wordtoken: Any, *rest: Any) -> tuple[Any, str]:
        value = wordtoken.value
        blanked = _plain_single_quotes(value)
        if blanked == value:
            return original(parserobj, wordtoken, *rest)  # type: ignore[no-any-return]
        wordtoken.value = blanked
        try:
            return original(parserobj, wordtoken, *rest)  # type: ignore[no-any-return]
        finally:
            wordtoken.value = value

    return expand


def _install_repair() -> None:
    global _REPAIRED
    if _INSTALLED == BASHLEX_VERSION and not _REPAIRED:
        bashlex.heredoc.makeheredoc = _read_heredoc
        for production in bashlex.parser.yaccparser.productions:
            if production.func == "p_redirection_heredoc":
                production.callable = _gather_after_lookahead(production.callable)
            elif production.func == "p_shell_command":
                production.callable = _condition_as_list(production.callable)
        bashlex.tokenizer.tokenizer.token = _metered(bashlex.tokenizer.tokenizer.token)
        _close_lists_in_substitutions()
        bashlex.subst._parsedolparen = _substitution_ends_at_its_parenthesis(  # noqa: SLF001 -- the repair replaces bashlex's own function
            bashlex.subst._parsedolparen  # noqa: SLF001
        )
        bashlex.subst._expandwordinternal = _single_quotes_are_plain_text(  # noqa: SLF001 -- as above
            bashlex.subst._expandwordinternal  # noqa: SLF001
        )
        _REPAIRED = True


_install_repair()


# ───────────────────────── the reader ─────────────────────────


def parse_only(text: str) -> Any:
    """Run ``bashlex.parse`` and nothing more (for benchmarks)."""
    return bashlex.parse(text)


def read_with_bashlex(
    source: Source, masks: Sequence[Mask] = (), budget: ReadingBudget = UNLIMITED
) -> Program:
    """
    Read ``source`` with bashlex into the neutral tree, within a work budget.

    Args:
        source: The text.
        masks: Constructs bashlex cannot parse, found by the other reader,
            to mask in the copy bashlex parses (see ``_masks``).
        budget: The reading's budget; once it is spent the reading stops.

    Raises:
        Unreadable: bashlex raised (any exception type), produced a node kind
            outside the lists, read a word differently from the scanner, or
            read more tokens than `BASHLEX_TOKENS_PER_CHAR` a character (or
            spent ``budget``).
    """
    with _metering(len(source.text), budget):
        return _read(source, masks, budget)


def _read(source: Source, masks: Sequence[Mask], budget: ReadingBudget) -> Program:
    if not _REPAIRED:
        raise Unreadable(
            f"bashlex {_INSTALLED} is installed but the gateway's repairs are proven only for {BASHLEX_VERSION}",
            0,
        )
    if _blank_or_comments(source.text):
        # bashlex raises AttributeError on text with no tokens at all.
        return Program(statements=())
    try:
        trees = bashlex.parse(apply_masks(source.text, masks))
    except Unreadable:
        raise
    except bashlex.errors.ParsingError as error:
        at = min(max(int(getattr(error, "position", 0) or 0), 0), len(source.text))
        if error.message == "unexpected EOF":
            # bashlex places it at the length of the text its end-of-input
            # token was last tied to, which after some texts (a trailing
            # backslash) is the text read before this one: it is the end.
            at = len(source.text)
        raise Unreadable(
            f"bashlex could not parse the text: {_explain(error.message)}", at
        ) from None
    except NotImplementedError as error:
        raise Unreadable(f"bashlex does not support {_unsupported(str(error))}", 0) from None
    except RecursionError:
        raise Unreadable("bashlex ran out of recursion depth", 0) from None
    except Exception as error:  # noqa: BLE001 -- bashlex raises AttributeError, IndexError, … on odd input
        raise Unreadable(f"bashlex failed with {type(error).__name__}", 0) from None
    reader = _Reader(source, masks, budget)
    tokens: list[Token] = []
    for tree in trees:
        reader.flatten(tree, tokens)
    statements = assemble(tokens, source, READER, reader.coprocs)
    reader.scanner.finish()
    reader.check_keywords()
    return Program(statements=statements)


_UNSUPPORTED: Final = {
    "pattern": "`case` statements",
    "time command": "the `time` keyword",
    "select command": "`select` loops",
    "coproc": "`coproc`",
    "arithmetic expansion": "`$(( ))` here",
    "arithmetic substitution": "`$[ ]` here",
}


def _unsupported(message: str) -> str:
    """What bashlex's NotImplementedError is about, said plainly (``type = {pattern}`` is a ``case``)."""
    kind = message.split("type = {", 1)[1].split("}", 1)[0] if "type = {" in message else message
    return _UNSUPPORTED.get(kind.strip(), shorten(message))


def _blank_or_comments(text: str) -> bool:
    """True when every line is blank or a comment: bash runs nothing for such text."""
    for line in text.split("\n"):
        stripped = line.strip(" \t")
        if stripped and not stripped.startswith("#"):
            return False
    return True


_MATCHING: Final = {
    ")": "an unterminated command substitution or subshell (no matching `)`)",
    "}": "an unterminated group or expansion (no matching `}`)",
    "'": "an unterminated single quote",
    '"': "an unterminated double quote",
    "`": "an unterminated backtick substitution",
}


def _explain(message: str) -> str:
    """bashlex's message, with the common ones said plainly."""
    if message.startswith("unexpected EOF while looking for matching"):
        token = message.split("matching ", 1)[1].strip()
        return _MATCHING.get(token[1:-1] if len(token) == 3 else token, shorten(message))
    return shorten(message)


class _Reader:
    def __init__(self, source: Source, masks: Sequence[Mask], budget: ReadingBudget) -> None:
        self.source = source
        self.text = source.text
        self.masks = {(mask.kind, mask.start): mask for mask in masks}
        self.masked_text = apply_masks(source.text, masks)
        self.case_heads = [
            arm.head for mask in masks if mask.case is not None for arm in mask.case.arms
        ]
        self.case_kept = [span for mask in masks if mask.case is not None for span in mask.keep]
        # The `time` keywords masked to blanks, by where they end: each must
        # stand, blanks apart, right before a pipeline bashlex read.
        self.times = {mask.end: mask for mask in masks if mask.kind == "time"}
        self.keywords = {
            (mask.kind, mask.start) for mask in masks if mask.kind in ("time", "select")
        }
        # The `coproc` keywords masked to blanks, by where the command after
        # each starts: `assemble` makes that command the coprocess's body.
        self.coprocs = {
            _after_blanks(self.masked_text, mask.end): _coproc_mark(self.text, mask)
            for mask in masks
            if mask.kind == "coproc"
        }
        self.subs: dict[int, SubEntry] = {}
        self.scanner = WordScanner(
            source, self.subs, READER, resolve=self.parse_missing, budget=budget
        )
        self.depth = 0

    def unexpected(self, node: Any, where: str) -> Unreadable:
        at = node.pos[0] if hasattr(node, "pos") else 0
        return Unreadable(f"bashlex produced a {node.kind!r} node {where} at offset {at}", at)

    def enter(self, at: int) -> None:
        self.depth += 1
        if self.depth > MAX_NESTING:
            raise Unreadable(f"the text nests deeper than {MAX_NESTING} levels at offset {at}", at)

    # ── sequences ──

    def flatten(self, node: Any, out: list[Token]) -> None:
        stack = [node]
        while stack:
            item = stack.pop()
            kind = item.kind
            if kind == "list":
                stack.extend(reversed(item.parts))
            elif kind == "operator":
                if item.op not in LIST_OPERATORS:
                    raise self.unexpected(item, f"for the operator {item.op!r}")
                out.append(OpToken(item.op, item.pos[0], item.pos[1]))
            elif kind == "pipeline":
                for part in reversed(item.parts):
                    if part.kind == "reservedword" and part.word == "!":
                        stack.append(_Neg(part.pos))
                    elif part.kind == "pipe":
                        stack.append(_Op(part.pipe, part.pos))
                    else:
                        stack.append(part)
            elif kind == "_neg":
                self.timed(item.pos[0], out)
                out.append(NegToken(item.pos[0], item.pos[1]))
            elif kind == "_op":
                out.append(OpToken(item.op, item.pos[0], item.pos[1]))
            elif kind in ("command", "compound", "function"):
                self.timed(item.pos[0], out)
                command, end = self.command(item)
                out.append(CmdToken(command, item.pos[0], end))
            else:
                raise self.unexpected(item, "where a command belongs")

    def timed(self, at: int, out: list[Token]) -> None:
        """
        Put back the ``time`` keyword its mask blanked before what starts at ``at``, if one did.

        The mask's blanks (and any blanks after them) must reach ``at``
        exactly; a ``time`` bashlex reads no pipeline after stays unused, and
        `check_keywords` refuses the reading.
        """
        before = at
        while before > 0 and self.masked_text[before - 1] in " \t":
            before -= 1
            mask = self.times.pop(before, None)
            if mask is not None:
                self.keywords.discard(("time", mask.start))
                out.append(TimeToken(mask.start, mask.end))
                return

    def check_keywords(self) -> None:
        """Every ``time``, ``select`` and ``coproc`` masked for bashlex must be one it read in its place."""
        if self.coprocs:
            at = min(mark.start for mark in self.coprocs.values())
            raise Unreadable(
                f"bashlex read the masked `coproc` at offset {at} in another place", at
            )
        if self.keywords:
            kind, at = min(self.keywords, key=lambda key: key[1])
            raise Unreadable(
                f"bashlex read the masked `{kind}` at offset {at} in another place", at
            )

    def sequence(self, nodes: list[Any]) -> tuple[Statement, ...]:
        tokens: list[Token] = []
        for node in nodes:
            self.flatten(node, tokens)
        return assemble(tokens, self.source, READER, self.coprocs)

    # ── commands ──

    def command(self, node: Any) -> tuple[Command, int]:
        """Return the command and its extent (past any heredoc terminator)."""
        kind = node.kind
        if kind == "command":
            return self.simple_command(node)
        if kind == "function":
            return self.function(node)
        return self.compound(node)

    def masked(self, node: Any) -> tuple[Command, int] | None:
        """The command a masked construct stands for, when ``node`` is one (see ``_masks``)."""
        parts = node.parts
        if not parts or parts[0].kind != "word":
            return None
        start = parts[0].pos[0]
        test = self.masks.get(("test", start))
        arith = self.masks.get(("arith_command", start))
        if test is None and arith is None:
            return None
        words = [part for part in parts if part.kind == "word"]
        if len(words) != len(parts):
            raise self.unexpected(node, "with redirects on a masked test")
        span = self.source.span(start, (test or arith).end)  # type: ignore[union-attr]
        if test is not None:
            operands = tuple(self.word(word) for word in words[1:])
            return Test(span=span, redirects=(), operands=operands), test.end
        assert arith is not None  # noqa: S101 -- one of the two masks matched
        for word in words[1:]:
            self.register_parts(word)
        expression = self.scanner.arithmetic(start + 2, arith.end - 2)
        return ArithCommand(span=span, redirects=(), expression=expression), arith.end

    def simple_command(self, node: Any) -> tuple[Command, int]:
        masked = self.masked(node)
        if masked is not None:
            return masked
        at = node.pos[0]
        if any(lo <= at < hi for lo, hi in self.case_heads) and not any(
            lo <= at < hi for lo, hi in self.case_kept
        ):
            # The mask's stand-in for a case arm's patterns: nothing of it is
            # a command; its substitutions (kept verbatim) are parsed.
            for part in node.parts:
                if part.kind == "word":
                    self.register_parts(part)
            empty = SimpleCommand(
                span=self.source.span(*node.pos), redirects=(), assignments=(), words=()
            )
            return empty, node.pos[1]
        assignments: list[Assignment] = []
        words: list[Word] = []
        redirects: list[Redirect] = []
        extent = node.pos[1]
        for part in node.parts:
            kind = part.kind
            if kind == "word" and not words and self._subscripted_assignment(part):
                kind = "assignment"  # bashlex reads `a[1]=2` as a command word; bash assigns
            if kind == "assignment" and not words:
                assignments.append(self.assignment(part))
            elif kind in ("word", "assignment"):
                words.append(self.word(part))
            elif kind == "redirect":
                redirect, end = self.redirect(part)
                redirects.append(redirect)
                extent = max(extent, end)
            else:
                raise self.unexpected(part, "inside a command")
        start = node.pos[0]
        return (
            SimpleCommand(
                span=self.source.span(start, node.pos[1]),
                redirects=tuple(redirects),
                assignments=tuple(assignments),
                words=tuple(words),
            ),
            extent,
        )

    def _subscripted_assignment(self, node: Any) -> bool:
        """True for a bare ``NAME[subscript]=`` word, which bash reads as an assignment."""
        text = self.text[node.pos[0] : node.pos[1]]
        split = split_assignment(text)
        if split is None or split[1] is None:
            return False
        prefix = text[: split[3]]
        return not any(char in prefix for char in "'\"\\`")

    def compound(self, node: Any) -> tuple[Command, int]:
        items = list(node.list)
        redirects: list[Redirect] = []
        extent = node.pos[1]
        for part in getattr(node, "redirects", None) or ():
            if part.kind != "redirect":
                raise self.unexpected(part, "among redirects")
            redirect, end = self.redirect(part)
            redirects.append(redirect)
            extent = max(extent, end)
        span = self.source.span(node.pos[0], node.pos[1])
        if not items:
            raise self.unexpected(node, "that is empty")
        first = items[0]
        if first.kind == "reservedword" and first.word in ("(", "{"):
            closer = ")" if first.word == "(" else "}"
            if items[-1].kind != "reservedword" or items[-1].word != closer:
                raise self.unexpected(node, f"not closed by {closer}")
            case = self.masks.get(("case", node.pos[0]))
            if first.word == "{" and case is not None and case.case is not None:
                return self.case(items[1:-1], case, tuple(redirects)), extent
            self.enter(node.pos[0])
            body = self.sequence(items[1:-1])
            self.depth -= 1
            if first.word == "(":
                return Subshell(span=span, redirects=tuple(redirects), body=body), extent
            return Group(span=span, redirects=tuple(redirects), body=body), extent
        if len(items) != 1 or first.kind not in COMPOUND_KINDS:
            raise self.unexpected(first, "inside a compound command")
        self.enter(node.pos[0])
        if first.kind == "if":
            command: Command = self.if_node(first, span, tuple(redirects))
        elif first.kind == "for":
            command = self.for_node(first, span, tuple(redirects))
        else:
            command = self.while_node(first, span, tuple(redirects))
        self.depth -= 1
        return command, extent

    def case(self, nodes: list[Any], mask: Mask, redirects: tuple[Redirect, ...]) -> Case:
        """
        A ``case`` bashlex read through its mask as ``{ : WORD; : PATTERNS; BODY; … }``.

        The statements bashlex parsed are given back to the arms by offset: a
        statement inside an arm's head is the mask's stand-in for its
        patterns (dropped, its substitutions kept), one after the head is
        the arm's body. The subject and the patterns are words the scanner
        reads from the original text.
        """
        layout = mask.case
        if layout is None:  # pragma: no cover - the caller checked
            raise Unreadable("a case mask without its layout", mask.start)
        self.enter(mask.start)
        statements = self.sequence(nodes)
        self.depth -= 1
        unexpected = Unreadable(
            f"bashlex read the masked case at offset {mask.start} unexpectedly", mask.start
        )
        if not statements or statements[0].span.start != mask.start + 2:
            raise unexpected
        stand_in = statements[0].body.pipelines[0].commands[0]
        if not (
            isinstance(stand_in, SimpleCommand)
            and len(statements[0].body.pipelines) == 1
            and len(stand_in.words) == 2
            and (stand_in.words[1].span.start, stand_in.words[1].span.end) == layout.subject
        ):
            raise unexpected
        rest = statements[1:]
        items: list[CaseItem] = []
        placed = 0
        for index, arm in enumerate(layout.arms):
            lo, hi = arm.head
            following = layout.arms[index + 1].head[0] if index + 1 < len(layout.arms) else mask.end
            heads = [s for s in rest if lo <= s.span.start < hi]
            body = tuple(s for s in rest if hi <= s.span.start < following)
            placed += len(heads) + len(body)
            if body and arm.terminator is not None and body[-1].terminator == ";":
                # The `;` the mask wrote for `;;` ends no statement in bash.
                at = arm.span[1] - len(arm.terminator)
                if self.masked_text[at] == ";" and self.text[at] == ";":
                    body = (*body[:-1], msgspec.structs.replace(body[-1], terminator=None))
            items.append(
                CaseItem(
                    patterns=tuple(self.scanner.word(a, b) for a, b in arm.patterns),
                    body=body,
                    terminator=arm.terminator,
                    head=self.source.span(lo, hi),
                    span=self.source.span(*arm.span),
                )
            )
        if placed != len(rest):
            raise unexpected
        return Case(
            span=self.source.span(mask.start, mask.end),
            redirects=redirects,
            subject=stand_in.words[1],
            items=tuple(items),
        )

    def split_reserved(
        self, parts: list[Any], keywords: frozenset[str]
    ) -> list[tuple[str, list[Any]]]:
        """Split a compound's parts at the given reserved words: ``[(keyword, nodes after it)]``."""
        sections: list[tuple[str, list[Any]]] = []
        for part in _spliced(parts):
            if part.kind == "reservedword" and part.word in keywords:
                sections.append((part.word, []))
            elif not sections:
                raise self.unexpected(part, "before the first keyword")
            else:
                sections[-1][1].append(part)
        return sections

    def if_node(self, node: Any, span: Any, redirects: tuple[Redirect, ...]) -> If:
        sections = self.split_reserved(node.parts, frozenset({"if", "then", "elif", "else", "fi"}))
        clauses: list[IfClause] = []
        else_body: tuple[Statement, ...] | None = None
        condition: tuple[Statement, ...] | None = None
        for keyword, nodes in sections:
            if keyword in ("if", "elif"):
                condition = self.sequence(nodes)
            elif keyword == "then":
                if condition is None:
                    raise self.unexpected(node, "with `then` before a condition")
                clauses.append(IfClause(condition=condition, body=self.sequence(nodes)))
                condition = None
            elif keyword == "else":
                else_body = self.sequence(nodes)
            elif nodes:
                raise self.unexpected(nodes[0], "after `fi`")
        return If(span=span, redirects=redirects, clauses=tuple(clauses), else_body=else_body)

    def for_node(self, node: Any, span: Any, redirects: tuple[Redirect, ...]) -> For | ArithFor:
        parts = list(node.parts)
        header = self.masks.get(("arith_for", parts[1].pos[0])) if len(parts) > 1 else None
        if header is not None:
            return self.arith_for(parts, header, span, redirects)
        if len(parts) < 4 or parts[1].kind != "word":
            raise self.unexpected(node, "with an unexpected header")
        select = ("select", node.pos[0]) in self.keywords
        self.keywords.discard(("select", node.pos[0]))
        variable = self.text[parts[1].pos[0] : parts[1].pos[1]]
        items: list[Word] | None = None
        index = 2
        while index < len(parts):
            part = parts[index]
            if part.kind == "reservedword" and part.word == "in":
                items = []
            elif part.kind == "reservedword" and part.word in (";", "\n"):
                pass
            elif part.kind == "reservedword" and part.word == "do":
                break
            elif part.kind == "word" and items is not None:
                items.append(self.word(part))
            else:
                raise self.unexpected(part, "inside a for loop header")
            index += 1
        rest = parts[index:]
        if len(rest) < 2 or rest[-1].kind != "reservedword" or rest[-1].word != "done":
            raise self.unexpected(node, "without do … done")
        return For(
            span=span,
            redirects=redirects,
            variable=variable,
            items=None if items is None else tuple(items),
            body=self.sequence(rest[1:-1]),
            select=select,
        )

    def arith_for(
        self, parts: list[Any], header: Mask, span: Any, redirects: tuple[Redirect, ...]
    ) -> ArithFor:
        """A ``for ((…))`` loop whose header bashlex read through its mask as ``for x in 000…``."""
        body_at = next(
            (
                i
                for i, part in enumerate(parts)
                if part.kind == "reservedword" and part.word == "do"
            ),
            None,
        )
        if body_at is None or parts[-1].kind != "reservedword" or parts[-1].word != "done":
            raise Unreadable(
                f"bashlex read the masked for (( )) loop at offset {header.start} unexpectedly",
                header.start,
            )
        for part in parts[:body_at]:
            if part.kind == "word":
                self.register_parts(part)
        expressions = tuple(
            self.scanner.arithmetic(lo, hi)
            for lo, hi in header.expressions
            if self.text[lo:hi].strip()
        )
        return ArithFor(
            span=span,
            redirects=redirects,
            expressions=expressions,
            body=self.sequence(parts[body_at + 1 : -1]),
        )

    def while_node(self, node: Any, span: Any, redirects: tuple[Redirect, ...]) -> While:
        sections = self.split_reserved(node.parts, frozenset({"while", "until", "do", "done"}))
        keywords = [keyword for keyword, _ in sections]
        if keywords not in (["while", "do", "done"], ["until", "do", "done"]) or sections[2][1]:
            raise self.unexpected(node, "with an unexpected shape")
        return While(
            span=span,
            redirects=redirects,
            until=keywords[0] == "until",
            condition=self.sequence(sections[0][1]),
            body=self.sequence(sections[1][1]),
        )

    def function(self, node: Any) -> tuple[Function, int]:
        parts = [
            p
            for p in node.parts
            if not (p.kind == "reservedword" and p.word in ("function", "(", ")"))
        ]
        if len(parts) != 2 or parts[0].kind != "word" or parts[1].kind != "compound":
            raise self.unexpected(node, "with an unexpected shape")
        name = self.text[parts[0].pos[0] : parts[0].pos[1]]
        self.enter(node.pos[0])
        body, extent = self.compound(parts[1])
        self.depth -= 1
        span = self.source.span(node.pos[0], node.pos[1])
        return Function(span=span, redirects=(), name=name, body=body), max(extent, node.pos[1])

    # ── words ──

    def register_parts(self, node: Any) -> None:
        """Register the substitutions bashlex parsed among a word's parts."""
        for part in getattr(node, "parts", None) or ():
            kind = part.kind
            if kind in ("parameter", "tilde"):
                continue
            if kind not in ("commandsubstitution", "processsubstitution"):
                raise self.unexpected(part, "inside a word")
            start = part.pos[0]
            opener = self.text[start]
            sub_kind: SubKind
            if kind == "commandsubstitution":
                sub_kind = "backtick" if opener == "`" else "dollar"
            else:
                sub_kind = "in" if opener == "<" else "out"
            if start in self.subs:
                continue
            end = part.pos[1]  # past the `)`: `_substitution_ends_at_its_parenthesis`
            if sub_kind != "backtick" and end != self._closer(start):
                # bashlex parses one line of a substitution: `$(a\nb)` stops after `a`.
                self.subs[start] = self._reparse(start, sub_kind)
                continue
            self.enter(start)
            body = self.sequence([part.command])
            self.depth -= 1
            self.subs[start] = SubEntry(end, sub_kind, body)

    def _closer(self, start: int) -> int:
        """Past the ``)`` closing the ``$(``, ``<(`` or ``>(`` at ``start`` (the project's own matcher)."""
        try:
            return closing_parenthesis(self.text, start + 2)
        except Unreadable:
            return -1

    def _reparse(self, start: int, kind: SubKind) -> SubEntry:
        """Parse a substitution's whole text with bashlex (every line of it), at its offsets."""
        end = self._closer(start)
        if end < 0:
            raise Unreadable(f"the substitution at offset {start} is not closed", start)
        inner = self.masked_text[start + 2 : end - 1]
        try:
            nodes = [] if _blank_or_comments(inner) else bashlex.parse(inner)
        except Unreadable:
            raise
        except Exception as error:  # noqa: BLE001 -- bashlex raises many exception types
            raise Unreadable(
                f"bashlex could not parse the substitution at offset {start} ({type(error).__name__})",
                start,
            ) from None
        for tree in nodes:
            bashlex.ast.posshifter(start + 2).visit(tree)
        self.enter(start)
        body = self.sequence(nodes)
        self.depth -= 1
        return SubEntry(end, kind, body)

    def parse_missing(self, at: int, kind: SubKind) -> SubEntry:
        """Parse, with bashlex, a substitution bashlex skipped but the word scanner found."""
        if kind != "backtick":
            return self._reparse(at, kind)
        close = _backtick_close(self.text, at)
        inner = self.text[at + 1 : close]
        if close < 0 or "\\" in inner:
            raise Unreadable(f"bashlex cannot read the backtick substitution at offset {at}", at)
        try:
            nodes = bashlex.parse(inner) if inner.strip() else []
        except Exception as error:  # noqa: BLE001 -- bashlex raises many exception types
            raise Unreadable(
                f"bashlex could not parse the substitution at offset {at} ({type(error).__name__})",
                at,
            ) from None
        for tree in nodes:
            bashlex.ast.posshifter(at + 1).visit(tree)
        end = close + 1
        self.enter(at)
        body = self.sequence(nodes)
        self.depth -= 1
        return SubEntry(end, kind, body)

    def word(self, node: Any) -> Word:
        self.register_parts(node)
        start, end = node.pos
        return self.scanner.word(start, end)

    def assignment(self, node: Any) -> Assignment:
        start, end = node.pos
        text = self.text[start:end]
        split = split_assignment(text)
        if split is None:
            raise self.unexpected(node, "that is not an assignment")
        name, subscript_bounds, append, value_at = split
        self.register_parts(node)
        subscript = None
        if subscript_bounds is not None:
            lo, hi = start + subscript_bounds[0], start + subscript_bounds[1]
            subscript = self.scanner.arithmetic(lo, hi)
        value: Word | None = None
        array: tuple[Word, ...] | None = None
        mask = self.masks.get(("array", start + value_at))
        if mask is not None and mask.end == end:
            # An array bashlex read through its mask as one word: the elements
            # are where the mask says, read from the original text.
            array = tuple(self.scanner.word(lo, hi) for lo, hi in mask.expressions)
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

    def redirect(self, node: Any) -> tuple[Redirect, int]:
        operator = node.type
        if operator not in REDIRECT_TYPES:
            raise self.unexpected(node, f"for the redirect {operator!r}")
        start, end = node.pos
        fd = None if getattr(node, "input", None) is None else str(node.input)
        output: Any = getattr(node, "output", None)
        target: Word | None = None
        if output == "-":
            operator += "-"
        elif isinstance(output, int):
            digits = str(output)
            target_end = end
            if self.text[target_end - len(digits) : target_end] != digits:
                raise self.unexpected(node, "whose descriptor target is not where it says")
            target = self.scanner.word(target_end - len(digits), target_end)
        elif output is not None and output.kind == "word":
            target = self.word(output) if operator not in ("<<", "<<-") else None
        else:
            raise self.unexpected(node, "without a target")
        heredoc_node = getattr(node, "heredoc", None)
        if operator not in ("<<", "<<-"):
            return Redirect(
                span=self.source.span(start, end), fd=fd, operator=operator, target=target
            ), end
        if heredoc_node is None or not hasattr(heredoc_node, "body_length"):
            raise self.unexpected(node, "whose heredoc body was not read")
        if not hasattr(output, "pos"):
            raise self.unexpected(node, "without a delimiter word")
        delim_start, delim_end = output.pos
        target = self.scanner.word(delim_start, delim_end)
        body_start = heredoc_node.pos[0]
        body_end = body_start + heredoc_node.body_length
        parts: tuple[Part, ...] = ()
        if not heredoc_node.quoted:
            parts = self.scanner.heredoc_body(body_start, body_end)
        heredoc = Heredoc(
            operator="<<-" if operator == "<<-" else "<<",
            delimiter=heredoc_node.delimiter,
            delimiter_text=self.text[delim_start:delim_end],
            quoted=heredoc_node.quoted,
            body_span=self.source.span(body_start, body_end),
            body=self.text[body_start:body_end],
            parts=parts,
        )
        return (
            Redirect(
                span=self.source.span(start, delim_end),
                fd=fd,
                operator=heredoc.operator,
                target=target,
                heredoc=heredoc,
            ),
            body_start + heredoc_node.terminator_length,
        )


def _after_blanks(text: str, at: int) -> int:
    """The first offset from ``at`` on that is not a space or a tab."""
    while text[at : at + 1] in (" ", "\t"):
        at += 1
    return at


def _coproc_mark(text: str, mask: Mask) -> CoprocMark:
    """The coprocess a ``coproc`` mask stands for: the name written after the keyword, if any."""
    name = text[mask.start + len("coproc") : mask.end].strip(" \t")
    return CoprocMark(mask.start, mask.end, name or "COPROC", named=bool(name))


def _spliced(parts: list[Any]) -> list[Any]:
    """
    A compound's parts with bashlex's nested ``elif`` groups spliced back in.

    From the second ``elif`` on, bashlex 0.18 wraps each ``elif … then …``
    (and what follows it) in a reserved-word node whose ``word`` is the list
    of those parts, one level deeper per ``elif``.
    """
    out: list[Any] = []
    stack = list(reversed(parts))
    while stack:
        part = stack.pop()
        if part.kind == "reservedword" and isinstance(part.word, list):
            stack.extend(reversed(part.word))
        else:
            out.append(part)
    return out


class _Neg:
    kind = "_neg"

    def __init__(self, pos: tuple[int, int]) -> None:
        self.pos = pos


class _Op:
    kind = "_op"

    def __init__(self, op: str, pos: tuple[int, int]) -> None:
        self.op = op
        self.pos = pos


class _HeredocEnds(bashlex.ast.nodevisitor):  # type: ignore[misc]
    """Collects the largest heredoc end offset under a node."""

    def __init__(self) -> None:
        self.found = -1

    def visitheredoc(self, heredoc: Any, value: Any) -> None:
        del value
        self.found = max(self.found, heredoc.pos[1])


def _last_heredoc_end(node: Any) -> int:
    """The largest heredoc end offset under ``node`` (-1 when it holds none)."""
    visitor = _HeredocEnds()
    visitor.visit(node)
    return visitor.found


def _backtick_close(text: str, at: int) -> int:
    """Offset of the backtick closing the one at ``at`` (backslash escapes skipped), or -1."""
    j = at + 1
    while j < len(text):
        if text[j] == "\\":
            j += 2
            continue
        if text[j] == "`":
            return j
        j += 1
    return -1
