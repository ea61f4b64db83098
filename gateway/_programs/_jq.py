"""
The jq reader: what a jq (gojq, jaq) command line and its program read and load.

A released jq program cannot write files or run commands (jq's development
tree adds ``exec/2``, read here as running a program), but it can read the whole
environment (``env``, ``$ENV``) and load code or data from files: ``import
"m" as m;`` and ``include "m";`` bring in modules (code from the search path,
``-L``), ``import "d" as $d;`` a JSON file the search path finds (so no word
names it). The command line reads files too
(``--rawfile``, ``--slurpfile``, ``--argfile``, the operands) and may take
the program from a file (``-f``: its first operand names it). jq and gojq
also source ``~/.jq`` when it is a file: code from the user's home, stated as
configured code.

The program is read with a tokenizer for jq: strings with their ``\\(…)``
interpolations (code inside strings, read as code), fields (``.env`` is not
``env``), variables (``$ENV``, also spelled ``$ ENV``), object keys
(``{env}`` and ``{env: 1}`` name a key, not the builtin), formats, comments,
numbers and operators. A comment ending in a backslash is unreadable (jq
1.7.1 continues it onto the next line, earlier versions do not), and so is
any character jq would not read.
"""

from __future__ import annotations

from collections.abc import Sequence, Set
from typing import Final, Literal, NamedTuple

from gateway._programs import ArgumentFact, ArgumentReading
from gateway._programs._lasting import MOST_ROUNDS
from gateway._programs._option_scanner import Scanner, table

__all__ = ["read_jq"]

_OPTIONS: Final = table(
    "--null-input -n",
    "--raw-input -R",
    "--slurp -s",
    "--compact-output -c",
    "--raw-output -r",
    "--raw-output0",
    "--join-output -j",
    "--nul-output -0",
    "--ascii-output -a",
    "--sort-keys -S",
    "--color-output -C",
    "--monochrome-output -M",
    "--tab",
    "--indent =",
    "--unbuffered",
    "--stream",
    "--stream-errors",
    "--seq",
    "--from-file -f",
    "--library-path -L =",
    # Each takes two words, NAME and a value: the reader takes the second.
    "--arg =",
    "--argjson =",
    "--slurpfile =",
    "--rawfile =",
    "--argfile =",
    "--args",
    "--jsonargs",
    "--exit-status -e",
    "--binary -b",
    "--version -V",
    "--build-configuration",
    "--help -h",
    "--debug-dump-disasm",
    "--debug-trace",
    "--run-tests",
    # gojq's own
    "--yaml-input",
    "--yaml-output",
    abbreviate=False,
)
"""jq 1.6 to 1.8's options (and gojq's); jq accepts no abbreviations, and stacks short letters."""

_FILE_OPTIONS: Final = frozenset({"--slurpfile", "--rawfile", "--argfile"})
_TWO_WORDS: Final = frozenset({"--arg", "--argjson", *_FILE_OPTIONS})
"""Options that take two words, NAME and a value (a file for the file options)."""
_EXITS: Final = frozenset({"--version", "--help", "--build-configuration"})
_HOME_CODE: Final = frozenset({"jq", "gojq"})
_REPEATING: Final = frozenset({"repeat", "while", "until", "combinations"})
"""jq words that go round by a count of their own (`_loops`)."""
"""The readers that source ``~/.jq`` when it is a file."""


def _optionish(word: str) -> bool:
    """jq reads a word as options when it is ``-`` then a letter or another ``-`` (``-1`` is a program)."""
    return word[:1] == "-" and (word[1:2] == "-" or word[1:2].isalpha())


# --- the program --------------------------------------------------------------


class _Unreadable(Exception):
    """The program cannot be tokenized as jq reads it; the message is the clause."""


class _Token(NamedTuple):
    kind: Literal["ident", "field", "variable", "string", "format", "number", "op"]
    text: str
    literal: str | None = None
    """For a string without interpolations or escapes: its value."""


_OPERATORS: Final = (
    "?//=",
    "?//",
    "//=",
    "!=",
    "==",
    "//",
    "|=",
    "+=",
    "-=",
    "*=",
    "/=",
    "%=",
    "<=",
    ">=",
    "..",
    *".?=;,:|+-*/%$<>[]{}()",
)
_OPERATORS_AT: Final = {
    first: tuple(operator for operator in _OPERATORS if operator[0] == first)
    for first in {o[0] for o in _OPERATORS}
}
"""jq's operators by their first character, longest first."""


def _ident_end(source: str, at: int) -> int:
    while at < len(source) and (
        source[at].isascii() and (source[at].isalnum() or source[at] == "_")
    ):
        at += 1
    return at


def _starts_ident(char: str) -> bool:
    return char.isascii() and (char.isalpha() or char == "_")


def _tokens(source: str) -> list[_Token]:
    """Tokenize a jq program, the code inside string interpolations included, in one pass."""
    tokens: list[_Token] = []
    # One entry per open string interpolation: the parenthesis depth inside it.
    interpolations: list[int] = []
    at = 0
    length = len(source)
    while at < length:
        char = source[at]
        if char in " \t\n\r":
            at += 1
        elif char == "#":
            end = source.find("\n", at)
            end = length if end < 0 else end
            trailing = len(source[at:end]) - len(source[at:end].rstrip("\\"))
            if trailing % 2:
                raise _Unreadable(
                    "it has a comment ending in a backslash, which jq versions read differently"
                )
            at = end
        elif char == '"':
            at = _string(source, at + 1, tokens, interpolations)
        elif char == ")" and interpolations and interpolations[-1] == 0:
            interpolations.pop()
            tokens.append(_Token("op", ")"))
            at = _string(source, at + 1, tokens, interpolations)
        elif char == "." and _starts_ident(source[at + 1 : at + 2]):
            end = _ident_end(source, at + 1)
            tokens.append(_Token("field", source[at + 1 : end]))
            at = end
        elif char == "$" and (_starts_ident(source[at + 1 : at + 2])):
            end = _qualified_end(source, at + 1)
            tokens.append(_Token("variable", source[at + 1 : end]))
            at = end
        elif char == "@" and _ident_end(source, at + 1) > at + 1:
            at = _ident_end(source, at + 1)
            tokens.append(_Token("format", "@"))
        elif _starts_ident(char):
            end = _qualified_end(source, at)
            tokens.append(_Token("ident", source[at:end]))
            at = end
        elif char.isascii() and (
            char.isdigit() or (char == "." and source[at + 1 : at + 2].isdigit())
        ):
            start = at
            while at < length and (
                source[at].isascii() and (source[at].isdigit() or source[at] == ".")
            ):
                at += 1
            if at < length and source[at] in "eE":
                at += 1
                if at < length and source[at] in "+-":
                    at += 1
                while at < length and source[at].isascii() and source[at].isdigit():
                    at += 1
            tokens.append(_Token("number", source[start:at]))
        else:
            operator = next(
                (o for o in _OPERATORS_AT.get(char, ()) if source.startswith(o, at)), None
            )
            if operator is None:
                raise _Unreadable(f"it has the character {char!r}, which jq does not read")
            if interpolations and operator == "(":
                interpolations[-1] += 1
            elif interpolations and operator == ")":
                interpolations[-1] -= 1
            tokens.append(_Token("op", operator))
            at += len(operator)
    if interpolations:
        raise _Unreadable("a string interpolation in it is not closed")
    return tokens


def _qualified_end(source: str, at: int) -> int:
    """The end of a name that may be qualified by modules (``mod::name``)."""
    at = _ident_end(source, at)
    while source.startswith("::", at) and _starts_ident(source[at + 2 : at + 3]):
        at = _ident_end(source, at + 2)
    return at


def _string(source: str, at: int, tokens: list[_Token], interpolations: list[int]) -> int:
    """Read a string's text from ``at`` to its closing quote, or to an interpolation's ``\\(``."""
    start = at
    plain = True
    while at < len(source):
        char = source[at]
        if char == "\\":
            following = source[at + 1 : at + 2]
            if following == "(":
                tokens.append(_Token("string", '"', None))
                tokens.append(_Token("op", "("))
                interpolations.append(0)
                return at + 2
            if following == "":
                break
            plain = False
            at += 2
        elif char == '"':
            tokens.append(_Token("string", '"', source[start:at] if plain else None))
            return at + 1
        else:
            at += 1
    raise _Unreadable("a string in it is not closed")


class _Program(NamedTuple):
    facts: list[ArgumentFact]
    refusals: list[str]


def _program_facts(source: str, index: int) -> _Program:
    """The environment reads and module loads of one jq program."""
    tokens = _tokens(source)
    facts: list[ArgumentFact] = []
    refusals: list[str] = []
    # The open brackets; for an object, whether the next token stands where a key does.
    brackets: list[list[str | bool]] = []

    def token(position: int) -> _Token | None:
        return tokens[position] if 0 <= position < len(tokens) else None

    def named(position: int) -> str | None:
        """The variable named by ``.NAME`` or ``["NAME"]`` right after ``position``."""
        following = token(position + 1)
        if following is not None and following.kind == "field":
            return following.text
        closing = token(position + 3)
        if following == _Token("op", "[") and closing == _Token("op", "]"):
            inner = token(position + 2)
            if inner is not None and inner.kind == "string":
                return inner.literal
        return None

    for position, current in enumerate(tokens):
        at_key = bool(brackets) and brackets[-1][0] == "{" and brackets[-1][1] is True
        if brackets and brackets[-1][0] == "{":
            brackets[-1][1] = False
        if current.kind == "op":
            if current.text in ("(", "[", "{"):
                brackets.append([current.text, current.text == "{"])
            elif current.text in (")", "]", "}"):
                if not brackets or brackets[-1][0] != {")": "(", "]": "[", "}": "{"}[current.text]:
                    raise _Unreadable(f"it has a `{current.text}` that closes nothing")
                brackets.pop()
            elif current.text == "," and brackets and brackets[-1][0] == "{":
                brackets[-1][1] = True
            elif current.text == "$":
                following = token(position + 1)
                if following is not None and following.kind == "ident" and following.text == "ENV":
                    facts.append(
                        ArgumentFact(
                            kind="read_environment",
                            via="$ENV",
                            index=index,
                            value=named(position + 1),
                        )
                    )
            continue
        following = token(position + 1)
        is_key = (
            at_key
            and following is not None
            and following.kind == "op"
            and following.text in (":", ",", "}")
        )
        if current.kind == "variable" and current.text == "ENV":
            facts.append(
                ArgumentFact(
                    kind="read_environment", via="$ENV", index=index, value=named(position)
                )
            )
        elif current.kind == "ident" and current.text == "env" and not is_key:
            facts.append(
                ArgumentFact(kind="read_environment", via="env", index=index, value=named(position))
            )
        elif current.kind == "ident" and current.text in ("import", "include") and not is_key:
            _directive(tokens, position, index, facts, refusals)
        elif current.kind == "ident" and not is_key and _loops(tokens, position):
            facts.append(
                ArgumentFact(
                    kind="lifetime", via=current.text, index=index, value=None, action="unbounded"
                )
            )
        elif current.kind == "ident" and current.text == "modulemeta" and not is_key:
            facts.append(ArgumentFact(kind="read", via="modulemeta", index=None, value=None))
        elif current.kind == "ident" and current.text == "exec" and not is_key:
            # jq's exec/2 (in its development tree) spawns a program with
            # arguments that are jq values, which no plan can show.
            opening, path = token(position + 1), token(position + 2)
            value = (
                path.literal
                if opening == _Token("op", "(") and path is not None and path.kind == "string"
                else None
            )
            facts.append(
                ArgumentFact(kind="execute", via="exec", index=index, value=value, action="program")
            )
            refusals.append("it runs a program with `exec`, whose arguments are jq values")
    if brackets:
        raise _Unreadable(f"it has a `{brackets[-1][0]}` that is never closed")
    return _Program(facts, refusals)


def _loops(tokens: Sequence[_Token], position: int) -> bool:
    """
    True when the name at ``position`` makes jq go round by a count of its own, not by its input.

    jq's input is finite, and so is what ``..``, ``recurse`` with no
    argument, ``reduce``, ``foreach`` and ``limit`` do with it. What repeats
    on its own may never end: ``repeat``, ``while``, ``until``, ``recurse``
    given a function (``recurse(.+1)``), ``combinations`` (exponential), a
    ``def`` that calls itself, and ``range`` unless its bounds are numbers
    written in the program that count at most `MOST_ROUNDS`.

    Examples:
        >>> [_loops(_tokens(text), 0) for text in ("repeat(1)", "recurse", "recurse(.[])")]
        [True, False, True]
        >>> [_loops(_tokens(text), 0) for text in ("range(5)", "range(0; 10; 2)", "range(infinite)")]
        [False, False, True]
    """
    name = tokens[position].text
    opens = position + 1 < len(tokens) and tokens[position + 1] == _Token("op", "(")
    if name in _REPEATING:
        return True
    if name == "def":
        return _calls_itself(tokens, position)
    if name == "recurse":
        return opens
    if name != "range":
        return False
    bounds: list[float] = []
    at = position + 2
    while opens and at < len(tokens) and tokens[at].kind == "number":
        bounds.append(float(tokens[at].text))
        if tokens[at + 1 : at + 2] == [_Token("op", ")")]:
            break
        if tokens[at + 1 : at + 2] != [_Token("op", ";")]:
            return True
        at += 2
    else:
        return True
    start, end, step = (
        (0.0, bounds[0], 1.0)
        if len(bounds) == 1
        else (bounds[0], bounds[1], 1.0)
        if len(bounds) == 2
        else (bounds[0], bounds[1], bounds[2])
    )
    if len(bounds) > 3 or step <= 0:
        return True  # jq refuses it, or a step of 0 counts forever
    return not (end - start) / step <= MOST_ROUNDS


def _calls_itself(tokens: Sequence[_Token], position: int) -> bool:
    """
    True when the ``def`` at ``position`` names itself in its body.

    A jq function sees only itself and the functions defined before it, so
    a loop of calls must pass through one that names itself. The body runs
    to the ``;`` that closes it: each ``def`` nested in it closes with a
    ``;`` of its own, and a ``;`` inside brackets separates arguments.

    Examples:
        >>> _calls_itself(_tokens("def f: f; f"), 0), _calls_itself(_tokens("def f: 1; f"), 0)
        (True, False)
        >>> _calls_itself(_tokens("def f: def g: f; g; 1"), 0)
        True
    """
    if position + 1 >= len(tokens):
        return True
    name = tokens[position + 1].text
    depth = nested = 0
    for token in tokens[position + 2 :]:
        if token.kind == "op" and token.text in ("(", "[", "{"):
            depth += 1
        elif token.kind == "op" and token.text in (")", "]", "}"):
            depth -= 1
        elif token == _Token("op", ";") and depth == 0:
            if not nested:
                return False
            nested -= 1
        elif token == _Token("ident", "def"):
            nested += 1
        elif token == _Token("ident", name):
            return True
    return True


def _directive(
    tokens: list[_Token], position: int, index: int, facts: list[ArgumentFact], refusals: list[str]
) -> None:
    """``import "path" as name;`` (code), ``import "path" as $name;`` (data), ``include "path";`` (code)."""
    directive = tokens[position].text
    path = tokens[position + 1] if position + 1 < len(tokens) else None
    if path is None or path.kind != "string":
        raise _Unreadable(f"its `{directive}` names no module")
    alias = tokens[position + 3] if position + 3 < len(tokens) else None
    data = (
        directive == "import"
        and alias is not None
        and (alias.kind == "variable" or alias == _Token("op", "$"))
    )
    # The search path (`-L`, `~/.jq`, jq's own lib, the working directory)
    # finds the file, with `.json` or `.jq` added: no word names it.
    facts.append(ArgumentFact(kind="read", via=directive, index=None, value=None))
    if not data:
        facts.append(
            ArgumentFact(
                kind="execute", via=directive, index=index, value=path.literal, action="code"
            )
        )
        shown = path.literal if path.literal is not None else "a module"
        refusals.append(f"its program loads `{shown}`, whose code is not in the call")


def read_jq(
    program: str,
    args: Sequence[str | None],
    *,
    one_word: Set[int] = frozenset(),
    no_dash: Set[int] = frozenset(),
) -> ArgumentReading:
    """
    Read a jq command line: its options, its program, and the files it reads.

    Facts, in argument order: ``read`` for ``--rawfile``/``--slurpfile``/
    ``--argfile`` files, for the program file of ``-f``, for each input
    file operand and for each module the program imports; ``execute``
    ``code`` for a module of code; ``read_environment`` for ``env`` and
    ``$ENV`` (with the variable, when one is named); ``execute``
    ``configured`` for ``~/.jq``, which jq and gojq source when it is a file.
    Operands after ``--args``/``--jsonargs`` are values, not files.

    Args:
        program: The basename looked up (``jq``, ``gojq``, ``jaq``).
        args: The arguments after the program word, ``None`` for one that expands.
        one_word: Not used: every expanding word may be several words.
        no_dash: Not used: every expanding word may begin with a dash.

    >>> reading = read_jq("jq", ["-r", "env.AWS_SECRET_ACCESS_KEY", "x.json"])
    >>> [(fact.kind, fact.via, fact.value) for fact in reading.facts if fact.index is not None]
    [('read_environment', 'env', 'AWS_SECRET_ACCESS_KEY'), ('read', 'operand', 'x.json')]
    """
    scanner = Scanner(args, _OPTIONS, permute=True, optionish=_optionish)
    options: list[str] = []
    facts: list[ArgumentFact] = []
    operands: list[int] = []
    text: tuple[str | None, int] | None = None
    from_file = exits = values = tests = False
    unreadable: str | None = None
    for item in scanner:
        if item.kind == "option":
            options.append(item.name)
            second = scanner.take(item.written) if item.name in _TWO_WORDS else None
            if item.name in _TWO_WORDS and second is None:
                break
            if item.name in _FILE_OPTIONS and second is not None:
                facts.append(
                    ArgumentFact(kind="read", via=item.written, index=second[1], value=second[0])
                )
            elif item.name == "--from-file":
                from_file = True
            elif item.name in ("--args", "--jsonargs"):
                values = True
            elif item.name == "--run-tests":
                # jq 1.6 reads every later word as a file of tests to run.
                tests = True
                unreadable = "it runs jq's tests from a file, whose code is not in the call"
                scanner.end_options()
            exits = exits or item.name in _EXITS
        elif item.kind == "operand":
            if tests:
                facts.append(
                    ArgumentFact(kind="read", via="--run-tests", index=item.start, value=item.value)
                )
            elif text is None:
                text = (item.value, item.start)
            elif not values:
                operands.append(item.start)
                facts.append(
                    ArgumentFact(kind="read", via="operand", index=item.start, value=item.value)
                )
    problem = scanner.problem
    if problem is not None:
        return ArgumentReading(
            program=program,
            table=True,
            options=tuple(options),
            facts=tuple(facts),
            undeclared=problem.undeclared,
            unreadable=problem.unreadable,
        )
    if program in _HOME_CODE:
        facts.insert(
            0,
            ArgumentFact(kind="execute", via="~/.jq", index=None, value=None, action="configured"),
        )
    if from_file and not tests:
        # jq reads the program from the file its first operand names.
        if text is not None:
            facts.append(ArgumentFact(kind="read", via="--from-file", index=text[1], value=text[0]))
        unreadable = "its program comes from a file, whose code is not in the call"
    elif text is not None and text[0] is None:
        unreadable = unreadable or "its program expands, so it cannot be read"
    if unreadable is None and text is not None and text[0] is not None:
        try:
            found = _program_facts(text[0], text[1])
        except _Unreadable as why:
            unreadable = f"its program cannot be read: {why}"
        else:
            facts.extend(found.facts)
            unreadable = next(iter(found.refusals), None)
    facts.sort(key=lambda fact: -1 if fact.index is None else fact.index)
    return ArgumentReading(
        program=program,
        table=True,
        options=tuple(options),
        operands=tuple(operands),
        facts=tuple(facts),
        unreadable=unreadable,
    )
