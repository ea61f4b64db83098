"""
A grammar of bash's hard corners, as hypothesis strategies, for the oracle to judge.

Every strategy draws text that bash may or may not accept; the oracle says
which, and what runs. The corners are the ones readers get wrong: quotes
inside parameter-expansion operands (in and out of double quotes, with
variables that are set — ``HOME``, ``PATH`` — and unset — ``u``, ``x`` —
so both branches of ``:-`` and ``:+`` are taken), backticks in double quotes
with backslash escapes, ``$'…'``, line continuations, comments, heredoc
delimiters with quotes and backslashes, ``<<-``, several heredocs on a line,
heredocs inside ``$( )``, ``case`` with ``;&``/``;;&``, ``[[ =~ ]]`` and the words
and grammar of ``[[ ]]``, arithmetic, arrays, ``coproc``, ``function f {}``, ``time -p``, ``!``, extglob.

Programs are named ``k1``… so a command bash runs is easy to tell from the
words around it; nothing here is ever run (the oracle skips every command).
"""

from __future__ import annotations

from hypothesis import strategies as st

__all__ = [
    "CONDITIONALS",
    "COPROC",
    "CORNERS",
    "EXTGLOB",
    "HEREDOC_IN_SUBSTITUTION",
    "KEYWORDS",
    "PLAIN_CLASS",
    "SHELL",
    "statements",
    "words",
]

NAMES = st.sampled_from(["k1", "k2", "k3", "echo", "cat", "rm"])
SET_VARIABLES = ("HOME", "PATH")
VARIABLES = st.sampled_from([*SET_VARIABLES, "u", "x", "1", "@", "?"])
OPERATORS = st.sampled_from(
    [":-", "-", ":=", "=", ":+", "+", ":?", "#", "##", "%", "%%", "/", "//", "/#", "^", ",,"]
)
PLAIN = st.text(alphabet="abcz019._-/=:,@%+", min_size=1, max_size=4)
DELIMITERS = st.sampled_from(["EOF", "E", "END_1"])


def _inner_statement(depth: int) -> st.SearchStrategy[str]:
    if depth <= 0:
        return st.one_of(NAMES, st.tuples(NAMES, PLAIN).map(" ".join))
    return statements(depth - 1)


def _backtick(body: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    """A backtick substitution; inside, sometimes the escapes bash removes before reading."""
    escape = st.sampled_from(["", '\\"a\\"', "\\$HOME", "\\\\", "'\\\"'"])
    return st.tuples(body, escape).map(
        lambda t: "`" + t[0].replace("`", "").replace("\\", "") + (" " + t[1] if t[1] else "") + "`"
    )


def operands(depth: int) -> st.SearchStrategy[str]:
    """What follows a parameter-expansion operator: quoted, substituted, plain."""
    inner = _inner_statement(depth - 1)
    return st.lists(
        st.one_of(
            PLAIN,
            st.sampled_from(["'", "''", "'a b'", "'}'", '"', '""', "\\}", "\\'", " ", "*"]),
            inner.map(lambda s: "'$(" + s + ")'"),
            inner.map(lambda s: "$(" + s + ")"),
            inner.map(lambda s: '"$(' + s + ')"'),
            _backtick(inner).map(lambda b: "'" + b + "'"),
            _backtick(inner),
            st.sampled_from(["$'\\x24(k3)'", "$'a'", '$"b"', "$x", "${u}", "~"]),
        ),
        max_size=3,
    ).map("".join)


def parameters(depth: int) -> st.SearchStrategy[str]:
    return st.one_of(
        VARIABLES.map(lambda v: "$" + v if len(v) == 1 else "${" + v + "}"),
        st.tuples(VARIABLES, OPERATORS, operands(depth)).map(
            lambda t: "${" + t[0] + t[1] + t[2] + "}"
        ),
        st.sampled_from(["${#HOME}", "${!u}", "${HOME:1:2}", "${a[1]}", "${a[@]}", "${u@Q}"]),
    )


def double_quoted(depth: int) -> st.SearchStrategy[str]:
    inner = _inner_statement(depth - 1)
    return st.lists(
        st.one_of(
            PLAIN,
            st.sampled_from([" ", "'", '\\"', "\\$", "\\\\", "\\`", "\\a", "\\\n", "*", "~", "!"]),
            parameters(depth),
            inner.map(lambda s: "$(" + s + ")"),
            _backtick(inner),
            st.sampled_from(["$((1+2))", "$[3]"]),
        ),
        max_size=4,
    ).map(lambda parts: '"' + "".join(parts) + '"')


def atoms(depth: int) -> st.SearchStrategy[str]:
    inner = _inner_statement(depth - 1)
    return st.one_of(
        PLAIN,
        PLAIN,
        st.text(alphabet='ab $\\"`()|;&\n*{}', max_size=5).map(lambda t: "'" + t + "'"),
        double_quoted(depth),
        st.sampled_from(["\\x41", "\\'", "\\x24(k2)", "\\n", "\\\\", "\\u00e9", "a\\0b"]).map(
            lambda t: "$'" + t + "'"
        ),
        st.just('$"t"'),
        parameters(depth),
        inner.map(lambda s: "$(" + s + ")"),
        inner.map(lambda s: "$(\n" + s + "\n)"),
        _backtick(inner),
        inner.map(lambda s: "<(" + s + ")"),
        inner.map(lambda s: ">(" + s + ")"),
        st.sampled_from(["$((1 + 2))", "$((x++))", "$[2*3]", "$(<f)", "$( <f )"]),
        inner.map(lambda s: "$((1+$(" + s + ")))"),
        st.sampled_from(["*", "?", "[ab]", "{a,b}", "{1..2}", "~", "~/p", "@(a|b)", "!(z)"]),
        st.sampled_from(["\\ ", "\\;", "\\$", "\\'", '\\"', "\\\\", "\\\n", "\\&", "\\|"]),
    )


def words(depth: int) -> st.SearchStrategy[str]:
    return st.lists(atoms(depth), min_size=1, max_size=3).map("".join)


def _heredoc(depth: int) -> st.SearchStrategy[tuple[str, str]]:
    """(redirect as written on the command line, body lines with the terminator)."""
    inner = _inner_statement(depth - 1)
    line = st.lists(
        st.one_of(
            PLAIN,
            st.sampled_from(["$x", "\\$HOME", "${u:-'a'}", "\\", "\t", " ", '"', "'", "EOF "]),
            # A line that starts with the delimiter and holds a `)`: inside a
            # substitution bash ends the body there and reads the rest as commands.
            st.sampled_from(["EOF)", "EOF (k3)", "E $(k3)", "END_1 )"]),
            # Openers and closers left open: text in a quoted body, in an
            # unquoted one an error bash finds only when it expands it.
            st.sampled_from(["$(", "`", "${", ")", "$((", "<(", "'$(", '"$(']),
            inner.map(lambda s: "$(" + s + ")"),
            _backtick(inner),
            parameters(depth),
        ),
        max_size=3,
    ).map("".join)
    return st.tuples(
        st.sampled_from(["<<", "<<-", "<< ", "0<<"]),
        DELIMITERS,
        st.sampled_from(["{}", "'{}'", '"{}"', "\\{}", "{}'", '{}"'[:-1] + "\\"]),
        st.lists(line, max_size=3),
        st.booleans(),
    ).map(_render_heredoc)


def _render_heredoc(t: tuple[str, str, str, list[str], bool]) -> tuple[str, str]:
    operator, delimiter, quoting, lines, tabbed = t
    if quoting == "{}'":
        written = delimiter[:-1] + "'" + delimiter[-1] + "'" if len(delimiter) > 1 else delimiter
    elif quoting.endswith("\\"):
        written = delimiter[:1] + "\\" + delimiter[1:]
    else:
        written = quoting.format(delimiter)
    terminator = ("\t" if tabbed and operator.startswith("<<-") else "") + delimiter
    body = "".join(("\t" if tabbed else "") + line + "\n" for line in lines)
    return operator.strip() + written, body + terminator + "\n"


REDIRECTS = st.sampled_from(
    ["> f", ">> f", "< f", "2>&1", ">&2", "&> f", ">| f", "<> f", "2> /dev/null", "<<< w", ">&-"]
)


@st.composite
def simple_commands(draw: st.DrawFn, depth: int) -> str:
    assignments = draw(
        st.lists(
            st.one_of(
                st.tuples(st.sampled_from(["A", "B"]), words(depth)).map(
                    lambda t: f"{t[0]}={t[1]}"
                ),
                st.sampled_from(["A=", "a=(x y)", "a+=(z)", "a[1]=v", "a[$((1+1))]=w"]),
                _inner_statement(depth - 1).map(lambda s: f"a=(x $({s}) 'y z')"),
            ),
            max_size=1,
        )
    )
    name = draw(st.one_of(NAMES, NAMES, NAMES, words(depth)))
    arguments = draw(st.lists(st.one_of(words(depth), st.just("-")), max_size=3))
    redirects = draw(
        st.lists(
            st.one_of(REDIRECTS, words(depth).map(lambda w: "> " + w)),
            max_size=1,
        )
    )
    return " ".join([*assignments, name, *arguments, *redirects])


@st.composite
def heredoc_commands(draw: st.DrawFn, depth: int) -> str:
    """A command with one or two heredocs, maybe a `-` before them and more on the line after."""
    name = draw(st.sampled_from(["cat", "k1", "python3 -", "git commit -F -", "k2 -"]))
    documents = draw(st.lists(_heredoc(depth), min_size=1, max_size=2))
    after = draw(st.sampled_from(["", " && k3", " | k2", " > out", "; k3", " &&\nk3"]))
    line = name + " " + " ".join(redirect for redirect, _ in documents) + after
    return line + "\n" + "".join(body for _, body in documents)


def compounds(depth: int) -> st.SearchStrategy[str]:
    body = statements(depth - 1)
    word = words(depth - 1)
    return st.one_of(
        body.map(lambda s: "( " + s + " )"),
        body.map(lambda s: "{ " + s + "; }"),
        st.tuples(body, body).map(lambda t: f"if {t[0]}; then {t[1]}; fi"),
        st.tuples(body, body, body, body).map(
            lambda t: f"if {t[0]}; then {t[1]}; elif {t[2]}; then {t[3]}; else k3; fi"
        ),
        st.tuples(word, body).map(lambda t: f"for v in {t[0]} b; do {t[1]}; done"),
        body.map(lambda s: f"for ((i=0; i<2; i++)); do {s}; done"),
        st.tuples(body, body).map(lambda t: f"while {t[0]}; do {t[1]}; break; done"),
        st.tuples(body, body).map(lambda t: f"until {t[0]}; do {t[1]}; done"),
        st.tuples(
            word,
            st.lists(
                st.tuples(
                    st.sampled_from(["a", "b|c", "*", "'q'", "$u", "[xy]", "@(a|b)"]),
                    body,
                    st.sampled_from([";;", ";&", ";;&"]),
                ),
                min_size=1,
                max_size=3,
            ),
        ).map(
            lambda t: (
                f"case {t[0]} in "
                + " ".join(f"{p}) {b} {e}" for p, b, e in t[1][:-1])
                + (f" {t[1][-1][0]}) {t[1][-1][1]};;" if t[1] else "")
                + " esac"
            )
        ),
        st.tuples(word, st.sampled_from(["=~", "==", "!=", "<", "-nt"]), word).map(
            lambda t: f"[[ {t[0]} {t[1]} {t[2]} ]]"
        ),
        st.tuples(word, word).map(lambda t: f"[[ -n {t[0]} && ( -z {t[1]} || x ) ]]"),
        st.sampled_from(["(( x = 1 + 2 ))", "(( a[1] ))", "(( $(k1) ))", "((i++))"]),
        body.map(lambda s: "function fn { " + s + "; }"),
        body.map(lambda s: "function fn() { " + s + "; }"),
        body.map(lambda s: "fn() ( " + s + " )"),
        body.map(lambda s: "coproc CP { " + s + "; }"),
        body.map(lambda s: "coproc " + s),
        body.map(lambda s: "select v in a b; do " + s + "; break; done"),
        st.tuples(word, body).map(lambda t: f"select v in {t[0]} b; do {t[1]}; break; done"),
        body.map(lambda s: "select v; do " + s + "; break; done"),
        st.tuples(word, body).map(lambda t: f"select v in {t[0]}\ndo {t[1]}\nbreak\ndone"),
    )


TIME_PREFIXES = st.sampled_from(
    ["", "! ", "time ", "time -p ", "! time ", "time ! ", "time -p -- ", "time -- ", "! time -p "]
)
"""What may stand before a pipeline: ``!``, ``time`` with its options, both in either order."""


def pipelines(depth: int) -> st.SearchStrategy[str]:
    command = (
        st.one_of(simple_commands(depth), compounds(depth)) if depth > 0 else simple_commands(0)
    )
    return st.tuples(
        TIME_PREFIXES,
        st.lists(command, min_size=1, max_size=3),
        st.sampled_from([" | ", " |& ", "|"]),
    ).map(lambda t: t[0] + t[2].join(t[1]))


def statements(depth: int, *, top: bool = False) -> st.SearchStrategy[str]:
    """A list of statements; comments only at the top (one would swallow a closer)."""
    and_or = st.tuples(
        st.lists(pipelines(depth), min_size=1, max_size=3),
        st.sampled_from([" && ", " || ", " &&\n", " ||\n "]),
    ).map(lambda t: t[1].join(t[0]))
    ends = ["", ";", " &", "\n", " # c $(k3)", "\n# c\n"] if top else [""]
    return st.tuples(
        st.lists(and_or, min_size=1, max_size=2),
        st.sampled_from(["; ", " & ", "\n", ";\n"]),
        st.sampled_from(ends),
    ).map(lambda t: t[1].join(t[0]) + t[2])


SHELL = st.one_of(
    statements(2, top=True),
    heredoc_commands(1),
    st.tuples(statements(1, top=True), heredoc_commands(1)).map(lambda t: t[0] + "\n" + t[1]),
    st.tuples(heredoc_commands(1), statements(1, top=True)).map(lambda t: t[0] + t[1]),
    statements(1).map(lambda s: 'k1 "$(' + s + ')"'),
    statements(1).map(lambda s: "x=$(\n" + s + "\n)"),
    heredoc_commands(0).map(lambda h: 'k1 "$(' + h + ')"'),
    heredoc_commands(0).map(lambda h: 'k1 "$(\n' + h + ')"'),
    heredoc_commands(0).map(lambda h: "k1 $(\n" + h + "\n)"),
    heredoc_commands(0).map(lambda h: 'A="$(' + h + ' )" k2'),
)
"""Any text of the grammar."""

HEREDOC_IN_SUBSTITUTION = st.tuples(
    st.sampled_from(['k1 "$(', "k1 $(", 'A="$(', "k1 <(", 'k1 "x$(']),
    st.sampled_from(["", "\n", " "]),
    heredoc_commands(0),
    st.sampled_from(["", " ", "\n", "\n\n"]),
    st.sampled_from(["", "$(k3)", "`k3`", "${u:-$(k3)}", " k2"]),
).map(
    lambda t: (
        t[0]
        + t[1]
        + t[2]
        + t[3]
        + ")"
        + ('"' if '"' in t[0] else "")
        + t[4]
        + (" k2" if t[0].startswith("A=") else "")
    )
)
"""A heredoc inside ``$( )`` (quoted or not) whose body may hold an opener left open, and what follows."""

# The class the reader may read without bashlex: plain words, quotes, `|`, `&&`,
# `;`, `>` and newlines (see docs/parsing.md, "Reading without bashlex").
_PLAIN_WORD = st.one_of(
    st.text(alphabet="abcz019._-/=:,@%+^", min_size=1, max_size=5),
    st.text(alphabet='ab $\\"`()|;&\n*{}#~<>!', max_size=6).map(lambda t: "'" + t + "'"),
    st.text(alphabet="ab '|;&\n*{}#~<>()!", max_size=6).map(lambda t: '"' + t + '"'),
)
_PLAIN_COMMAND = st.tuples(
    st.lists(st.lists(_PLAIN_WORD, min_size=1, max_size=2).map("".join), min_size=1, max_size=4),
    st.sampled_from(["", "", " > f", " >f", " > 'o u t'", ">>f", " >2", " > 2>f", " >>12>>f"]),
    st.sampled_from(["", "", " >g k", " 2 >g", " >3 k"]),
).map(lambda t: " ".join(t[0]) + t[2] + t[1])
PLAIN_CLASS = st.tuples(
    st.lists(_PLAIN_COMMAND, min_size=1, max_size=4),
    st.lists(
        st.sampled_from([" | ", "|", " && ", "&&", "; ", ";", "\n", " ;\n"]), min_size=3, max_size=3
    ),
).map(
    lambda t: "".join(
        command + (t[1][i % 3] if i < len(t[0]) - 1 else "") for i, command in enumerate(t[0])
    )
)
"""Texts of exactly the class the reader reads without bashlex."""

# Substitution openers between single quotes, where bash reads them as characters
# (in a word) or, inside a double-quoted `${x:-…}`, as an expansion.
_QUOTED_OPENER = st.tuples(
    st.sampled_from(["", "a", "a b"]),
    st.sampled_from(["`", "`k3`", "$(", "$(k3)", "<(", "<(k3)", "`$(", "${"]),
    st.sampled_from(["", "b", " b"]),
).map(lambda t: "'" + "".join(t) + "'")
SINGLE_QUOTED_OPENERS = st.tuples(
    st.sampled_from(["x=", "x=a", "k1 ", "k1 a", "x=${u:-", 'x="${u:-', 'k1 "${u:+', "k1 ${u:-"]),
    _QUOTED_OPENER,
    st.sampled_from(["", "c", "'c'", "$(k2)", '"$(k2)"']),
    st.sampled_from(["", '; k1 "$x"', " k2", " && k2"]),
).map(
    lambda t: (
        t[0] + t[1] + t[2] + ("}" if "${" in t[0] else "") + ('"' if '"' in t[0] else "") + t[3]
    )
)
"""A single-quoted substitution opener in an assignment, an argument or a `${x:-…}`, in or out of double quotes."""

# ``time``, ``select`` and ``coproc`` in every place a pipeline or a command
# may stand, with small bodies: the keywords bashlex does not read.
_KEYWORD_BODY = statements(0)
KEYWORDS = st.one_of(
    st.tuples(
        TIME_PREFIXES, pipelines(1), st.sampled_from(["", " && k3", " || k3", "; k3", " &"])
    ).map("".join),
    st.tuples(
        st.sampled_from(["k1 | ", "k1 && ", "A=1 ", "> f ", "'time' ", "\\time "]), pipelines(0)
    ).map(lambda t: t[0] + t[1].replace("k1", "time k1", 1)),
    st.tuples(st.sampled_from(["$(", "<(", "{ ", "( ", "if "]), TIME_PREFIXES, pipelines(0)).map(
        lambda t: (
            t[0]
            + t[1]
            + t[2]
            + {"$(": ")", "<(": ")", "{ ": "; }", "( ": " )"}.get(t[0], "; then k3; fi")
        )
    ),
    st.sampled_from(["time", "time -p", "time -p -p k1", "time time k1", "time { k1; }"]),
    st.tuples(words(0), _KEYWORD_BODY).map(lambda t: f"select v in {t[0]}; do {t[1]}; break; done"),
    _KEYWORD_BODY.map(lambda s: "coproc " + s),
    _KEYWORD_BODY.map(lambda s: "coproc CP { " + s + "; }"),
)
"""Texts around ``time``, ``select`` and ``coproc``."""

# Every form of ``coproc`` the readers admit, and its neighbours they refuse:
# named and unnamed compounds, simple commands, redirections after either,
# inside `$( )` and `<( )`, after `&&` and in pipelines, substitutions nested
# in its words.
_COPROC_WORD = st.sampled_from(
    ["a", '"$(k2)"', "$(k2 $(k3))", "`k3`", "${u:-$(k2)}", "'q w'", "$x", "<(k3)"]
)
_COPROC_SIMPLE = st.tuples(
    st.sampled_from(["", "A=1 ", "> f ", "N "]),
    NAMES,
    st.lists(_COPROC_WORD, max_size=2),
).map(lambda t: t[0] + " ".join([t[1], *t[2]]))
_COPROC_REDIRECT = st.sampled_from(
    ["", " > f", " >> f 2>&1", ' > "$(k3)"', " < in", " 2>/dev/null"]
)
# Small bodies: `KEYWORDS` puts the grammar's hard words in coprocesses already.
_COPROC_BODY = st.tuples(
    st.lists(_COPROC_SIMPLE, min_size=1, max_size=3),
    st.sampled_from(["; ", " | ", " && ", "\n"]),
).map(lambda t: t[1].join(t[0]))
_COPROC_FORM = st.one_of(
    st.tuples(st.sampled_from(["", "CP ", "N_2 "]), _COPROC_BODY, _COPROC_REDIRECT).map(
        lambda t: f"coproc {t[0]}{{ {t[1]}; }}{t[2]}"
    ),
    st.tuples(st.sampled_from(["", "CP ", "N_2 "]), _COPROC_BODY, _COPROC_REDIRECT).map(
        lambda t: f"coproc {t[0]}( {t[1]} ){t[2]}"
    ),
    st.tuples(_COPROC_SIMPLE, _COPROC_REDIRECT).map(lambda t: "coproc " + "".join(t)),
    st.sampled_from(
        ["coproc k1 then", "coproc N ! k1", "coproc 'N' { k1; }", "coproc N(k1)", "coproc ; k1"]
    ),
)
COPROC = st.tuples(
    st.sampled_from(["", "k2 && ", "k2 || ", "! ", "k2 | ", "k2; ", "time "]),
    _COPROC_FORM,
    st.sampled_from(["", " | k3", " && k3", " &", '; k3 "$CP_PID" "${COPROC[1]}"', "\nwait"]),
    st.sampled_from(["{}", 'k1 "$({})"', "x=$({})", "k1 <({})", "{{ {}; }}", "k1 `{}`"]),
).map(lambda t: t[3].format(t[0] + t[1] + t[2]))
"""``coproc`` in its forms, in every place a command stands, inside substitutions too."""

_EXTGLOB_PATTERN = st.tuples(
    st.sampled_from(["@", "!", "*", "+", "?"]),
    st.lists(
        st.sampled_from(["a", "b*", "$u", "$(k2)", "'q'", "[xy]", ""]), min_size=1, max_size=3
    ),
    st.sampled_from(["", "x", "*", ".c"]),
).map(lambda t: t[0] + "(" + "|".join(t[1]) + ")" + t[2])
EXTGLOB = st.tuples(
    st.sampled_from(["", "shopt -s extglob; ", "shopt -s extglob\n", "k2\n"]),
    st.one_of(
        st.tuples(st.sampled_from(["==", "!=", "=", "=~", "<"]), _EXTGLOB_PATTERN).map(
            lambda t: f"[[ $x {t[0]} {t[1]} ]] && k1"
        ),
        _EXTGLOB_PATTERN.map(lambda p: f"[[ {p} == x ]]"),
        _EXTGLOB_PATTERN.map(lambda p: f"case $x in {p}) k1;; *) k3;; esac"),
        _EXTGLOB_PATTERN.map(lambda p: f"k1 {p}"),
        _EXTGLOB_PATTERN.map(lambda p: f"x={p} k1"),
        _EXTGLOB_PATTERN.map(lambda p: f"k1 ${{x/{p}/y}}"),
        st.sampled_from(["!(k1)", "!(k1) && k2", "k2 | !(k1)", "f*() { k1; }", "a=(x @(y))"]),
    ),
).map("".join)
"""Extended patterns where bash reads them whatever ``extglob`` says, and where it depends."""

# ───────────────────────── hard corners, second wave ─────────────────────────
# Each corner is a function of its own (they are drawn together as `CORNERS`).


def _small(depth: int) -> st.SearchStrategy[str]:
    """A small statement for the inside of a corner: a program, or a corner again."""
    return (
        _inner_statement(depth)
        if depth <= 0
        else st.one_of(_inner_statement(0), corners(depth - 1))
    )


def _nested_operand_parts(depth: int) -> st.SearchStrategy[str]:
    inner = _small(depth - 1)
    return st.one_of(
        PLAIN,
        st.sampled_from(["'", '"', "'\"'", '"\'"', "\\'", '\\"', "\\/", "/", "}", "\\}", "'}'"]),
        st.sampled_from(["${u:-", "${x:+", "${HOME//", "$'\\''", "$'\\x27'", "$'}'", "\\$("]),
        inner.map(lambda s: "$(" + s + ")"),
        inner.map(lambda s: "'$(" + s + ")'"),
        inner.map(lambda s: '"$(' + s + ')"'),
        inner.map(lambda s: '"`' + s + '`"'),
        inner.map(lambda s: "`" + s + "`"),
        inner.map(lambda s: "'`" + s + "`'"),
        inner.map(lambda s: "${u:-$(" + s + ")}"),
        inner.map(lambda s: "${u:-'$(" + s + ")'}"),
        inner.map(lambda s: '${u:-"$(' + s + ')"}'),
    )


def nested_parameters(depth: int) -> st.SearchStrategy[str]:
    """``${x:-…}``, ``${x//…/…}``, ``${x@Q}`` with quotes and substitutions nested in their operands."""
    operand = st.lists(_nested_operand_parts(depth), max_size=3).map("".join)
    variable = st.sampled_from(["HOME", "u", "x", "@", "1", "a[1]", "a[@]"])
    expansion = st.one_of(
        st.tuples(variable, st.sampled_from([":-", "-", ":+", "+", ":=", "#", "%%"]), operand).map(
            lambda t: "${" + t[0] + t[1] + t[2] + "}"
        ),
        st.tuples(variable, st.sampled_from(["/", "//", "/#", "/%"]), operand, operand).map(
            lambda t: "${" + t[0] + t[1] + t[2] + "/" + t[3] + "}"
        ),
        st.tuples(variable, st.sampled_from(["//", "/"]), operand).map(
            lambda t: "${" + t[0] + t[1] + t[2] + "}"
        ),
        st.tuples(variable, st.sampled_from("QEPAaKkUuL")).map(
            lambda t: "${" + t[0] + "@" + t[1] + "}"
        ),
        st.tuples(variable, operand).map(lambda t: "${" + t[0] + ":" + t[1] + "}"),
    )
    return st.tuples(
        st.sampled_from(["", '"', "x", 'x"']), expansion, st.sampled_from(["", "z"])
    ).map(lambda t: t[0] + t[1] + t[2] + ('"' if '"' in t[0] else ""))


def backticks_in_substitutions(depth: int) -> st.SearchStrategy[str]:
    """Backticks inside double quotes inside ``$( )`` and the other way round, with their escapes."""
    inner = _small(depth - 1)
    escape = st.sampled_from(["", ' \\"a\\"', " \\$HOME", " \\\\$", " \\`", " '\\\"'", ' \\\\\\"'])
    return st.one_of(
        st.tuples(inner, escape).map(lambda t: '$(k1 "`' + t[0] + t[1] + '`")'),
        st.tuples(inner, escape).map(lambda t: '"$(k1 "`' + t[0] + t[1] + '`")"'),
        st.tuples(inner, escape).map(lambda t: '"$(k1 `' + t[0] + t[1] + '`)"'),
        inner.map(lambda s: '`k1 "$(' + s + ')"`'),
        inner.map(lambda s: '"`k1 "$(' + s + ')"`"'),
        inner.map(lambda s: "`k1 \\`" + s + "\\``"),
        inner.map(lambda s: '"`k1 \\`' + s + '\\``"'),
        inner.map(lambda s: '"`k1 \\"\\`' + s + '\\`\\"`"'),
        inner.map(lambda s: "$(k1 '`' " + s + " '`')"),
        inner.map(lambda s: "`k1 '$(' " + s + " ')'`"),
    )


_CONTINUED = (
    "k\\\n1 a",
    "k1 a\\\nb",
    "k1 \\\n$(k2)",
    "k1 $\\\n(k2)",
    "k1 $(\\\nk2)",
    "k1 $\\\n{u:-$(k2)}",
    'k1 "a\\\n$(k2)"',
    "k1 '\\\n' k2",
    "k1 &\\\n& k2",
    "k1 |\\\n| k2",
    "k1 |\\\n k2",
    "k1 ;\\\n; k2",
    "k1 >\\\n> f",
    "k1 2>\\\n&1",
    "k1 <\\\n<< w",
    "cat <\\\n<E\nx $(k2)\nE",
    "cat <<E\\\nF\nx $(k2)\nEF",
    "cat <<E\\\nF\nx $(k2)\nE\\\nF\nEF",
    "cat <<'E\\\nF'\nx $(k2)\nE\\\nF'\nE\\\nF\n'",
    "cat <<E\nx\\\n$(k2)\nE",
    "cat <<E\nx $(k2\\\n)\nE",
    "cat <<E\nE\\\nk2\nE",
    "cat <<'E'\nx\\\nE\nk2",
    "cat <<-E\n\tx \\\n\tE\n\tE",
    "i\\\nf k1; then k2; f\\\ni",
    "fun\\\nction f { k1; }",
    "k1 \\\n# c\nk2",
    "k1 #c\\\nk2",
    "k1 \\# k2",
    "k1 a\\ #b; k2",
    "k1 a #\\\nb; k2",
    "k1 `k2 \\\n`",
    "k1 $((1\\\n+2))",
    "k1 $(( $(k2)\\\n))",
    "x=a\\\nb k1",
    "x\\\n=a k1",
    "a[\\\n1]=x k1",
    "\\\nk1",
    "k1 \\\n",
    "k1 <(\\\nk2)",
    "case a\\\nb in ab) k1;; esac",
    "[[ a =\\\n~ b ]] && k1",
    "[[ a \\\n=~ $(k2) ]]",
    "(( 1 \\\n)) && k1",
    "k1 $'a\\\nb' k2",
)


def continuations(depth: int) -> st.SearchStrategy[str]:
    """``\\`` + newline inside words, operators, heredoc delimiters and bodies, comments."""
    del depth
    return st.sampled_from(_CONTINUED)


def comments(depth: int) -> st.SearchStrategy[str]:
    """Comments after a backslash, inside substitutions and after words that look like one."""
    inner = _small(depth - 1)
    return st.one_of(
        st.tuples(
            inner, st.sampled_from(["\\#", "a#b", "a\\ #", "'#'", '"#"', "$#", "${#x}", "#"])
        ).map(lambda t: "k1 " + t[1] + " " + t[0]),
        inner.map(lambda s: "k1 $(# c )\n" + s + "\n)"),
        inner.map(lambda s: "k1 $(k2 # )\n" + s + ")"),
        inner.map(lambda s: "k1 `# c\n" + s + "`"),
        inner.map(lambda s: "k1 `k2 # c`; " + s),
        inner.map(lambda s: 'k1 "$(# )\n' + s + ')"'),
        inner.map(lambda s: "{ k1; } # }\n" + s),
        inner.map(lambda s: "k1 <(# )\n" + s + ")"),
        inner.map(lambda s: "case x in # c\nx) " + s + ";; # ;;\nesac"),
        inner.map(lambda s: "k1 ${u:-# }" + s),
        inner.map(lambda s: "k1 ${u:-a #}; " + s),
    )


def ansi_c(depth: int) -> st.SearchStrategy[str]:
    """``$'…'`` whose escapes make quotes, newlines, ``$(`` or backticks: text, never code."""
    inner = _small(depth - 1)
    escape = st.sampled_from(
        [
            "\\'",
            "\\x27",
            "\\047",
            "\\u0027",
            '\\"',
            "\\x22",
            "\\n",
            "\\x0a",
            "\\012",
            "\\x24(k2)",
            "\\x60k2\\x60",
            "\\$(k2)",
            "\\`k2\\`",
            "\\c",
            # Not \cA (byte 1) nor \c? (byte 127): bash's own print of a
            # command ($BASH_COMMAND, which the probe evaluates again) puts
            # its internal quoting byte (1) before each, so the probe's argv
            # is not the one bash runs (proven: $'\\cA' is printed as two 1s).
            "\\cB",
            "\\c'",
            "\\c\\\\",
            "\\x{72}\\x{6d}",
            "\\\\",
            "\\e",
            "\\x",
            "\\u",
            "\\U0001F600",
            "\\x{41}",
            "\\8",
            "a\\",
            "$(k2)",
            "`k2`",
        ]
    )
    body = st.lists(escape, min_size=1, max_size=3).map(lambda parts: "$'" + "".join(parts) + "'")
    return st.one_of(
        body.map(lambda b: "k1 " + b),
        body.map(lambda b: "k1 " + b + "; k3"),
        body.map(lambda b: 'k1 "' + b + '"'),
        body.map(lambda b: "k1 ${u:-" + b + "}"),
        body.map(lambda b: 'k1 "${u:-' + b + '}"'),
        body.map(lambda b: "x=" + b + " k1"),
        st.tuples(body, inner).map(lambda t: "k1 $(k2 " + t[0] + "; " + t[1] + ")"),
        st.tuples(body, inner).map(lambda t: "k1 `k2 " + t[0] + "`; " + t[1]),
        body.map(lambda b: "cat <<" + b + "\nx $(k2)\n" + b[2:-1] + "\n"),
        body.map(lambda b: "case " + b + " in " + b + ") k1;; esac"),
        body.map(lambda b: "[[ " + b + " =~ " + b + " ]] && k1"),
    )


def _body_line(depth: int) -> st.SearchStrategy[str]:
    inner = _small(depth - 1)
    return st.lists(
        st.one_of(
            PLAIN,
            st.sampled_from(["$x", "\\$(k3)", "`", "\\`", "'", '"', ")", "$(", "\t", "E", "EOF"]),
            inner.map(lambda s: "$(" + s + ")"),
            inner.map(lambda s: "`" + s + "`"),
        ),
        max_size=3,
    ).map("".join)


@st.composite
def _heredoc_line(draw: st.DrawFn, depth: int) -> str:
    """A command with up to three heredocs (``<<``, ``<<-``, quoted delimiters) and a here-string."""
    count = draw(st.integers(min_value=1, max_value=3))
    redirects: list[str] = []
    bodies: list[str] = []
    for index in range(count):
        delimiter = draw(st.sampled_from(["E", "EOF", "A1"])) + str(index)
        operator = draw(st.sampled_from(["<<", "<<-", "<< ", "<<- ", "2<<"]))
        written = draw(
            st.sampled_from(
                [
                    delimiter,
                    f"'{delimiter}'",
                    f'"{delimiter}"',
                    "\\" + delimiter,
                    delimiter[0] + "''" + delimiter[1:],
                ]
            )
        )
        tab = "\t" if operator.startswith("<<-") and draw(st.booleans()) else ""
        lines = draw(st.lists(_body_line(depth), max_size=2))
        redirects.append(operator + written)
        bodies.append("".join(tab + line + "\n" for line in lines) + tab + delimiter + "\n")
    here_string = draw(st.sampled_from(["", " <<< w", ' <<<"$(k3)"', " <<<$(k3)"]))
    name = draw(st.sampled_from(["cat", "k1", "k1 -"]))
    after = draw(st.sampled_from(["", " | k2", " && k2", "; k2"]))
    return name + " " + " ".join(redirects) + here_string + after + "\n" + "".join(bodies)


def heredocs_inside(depth: int) -> st.SearchStrategy[str]:
    """Heredocs inside ``$( )``, backticks and ``<( )``, and several on one line."""
    line = _heredoc_line(depth)
    return st.one_of(
        line,
        line.map(lambda h: "k1 $(" + h + ")"),
        line.map(lambda h: 'k1 "$(' + h + ')"'),
        line.map(lambda h: "k1 <(" + h + ")"),
        line.map(lambda h: "k1 `" + h + "`"),
        line.map(lambda h: 'k1 "`' + h + '`"'),
        line.map(lambda h: "k1 `" + h.replace("$(", "\\$(") + "`"),
        line.map(lambda h: "k1 $(" + h + ") k3"),
        line.map(lambda h: "x=$(" + h + ")"),
        line.map(lambda h: "{ " + h + "}"),
        line.map(lambda h: "f() { " + h + "}"),
    )


def cases(depth: int) -> st.SearchStrategy[str]:
    """``case`` with ``;&``/``;;&``, ``(`` before patterns, substitutions in the word and patterns."""
    body = _small(depth - 1)
    pattern = st.sampled_from(
        [
            "a",
            "(a",
            "(a|b",
            "a|b",
            "*",
            "'('",
            "\\(",
            '"$(k2)"',
            "$(k2)",
            "`k2`",
            "${u:-$(k2)}",
            "[()]",
            "\\)",
            "esac",
            "in",
            "(esac",
            "x)|(y",
        ]
    )
    arm = st.tuples(pattern, body, st.sampled_from([";;", ";&", ";;&", ""]))
    return st.tuples(
        st.sampled_from(["x", "a", "$(k1)", "`k1`", '"$u"', "(", "esac"]),
        st.lists(arm, min_size=1, max_size=3),
        st.sampled_from([" ", "\n"]),
    ).map(
        lambda t: (
            f"case {t[0]} in{t[2]}"
            + t[2].join(f"{p}) {b} {e or ';;'}" for p, b, e in t[1][:-1])
            + f"{t[2]}{t[1][-1][0]}) {t[1][-1][1]} {t[1][-1][2]}{t[2]}esac"
        )
    )


def regexes(depth: int) -> st.SearchStrategy[str]:
    """``[[ =~ ]]`` with regex metacharacters, quotes, and substitutions in the pattern."""
    inner = _small(depth - 1)
    piece = st.one_of(
        st.sampled_from(
            [
                "^",
                "$",
                "(a|b)",
                "a+",
                "[[:space:]]",
                "[]a]",
                "\\(",
                "\\ ",
                "a{1,2}",
                "(",
                ")",
                "|",
                ".*",
                "'('",
                '"|"',
                "\\$",
                "[$]",
                "$x",
                "${u}",
                "x?",
                "<",
                ">",
            ]
        ),
        inner.map(lambda s: "$(" + s + ")"),
        inner.map(lambda s: "`" + s + "`"),
        inner.map(lambda s: "($(" + s + "))"),
        inner.map(lambda s: '"$(' + s + ')"'),
    )
    regex = st.lists(piece, min_size=1, max_size=4).map("".join)
    return st.tuples(
        st.sampled_from(["x", "$x", "$(k1)", '"a b"']),
        regex,
        st.sampled_from(["", " && k3", " || k3", " && [[ a == b ]]"]),
    ).map(lambda t: f"[[ {t[0]} =~ {t[1]} ]]{t[2]}")


def subscripts(depth: int) -> st.SearchStrategy[str]:
    """Arithmetic with ``$( )`` and array subscripts ``a[$(cmd)]``, which bash evaluates."""
    inner = _small(depth - 1)
    index = st.one_of(
        inner.map(lambda s: "$(" + s + ")"),
        inner.map(lambda s: "`" + s + "`"),
        inner.map(lambda s: '"$(' + s + ')"'),
        inner.map(lambda s: "'$(" + s + ")'"),
        st.sampled_from(["1", "x", "$x", "i++", "${u:-1}", "a[1]"]),
    )
    return st.one_of(
        index.map(lambda i: "k1 $(( a[" + i + "] ))"),
        index.map(lambda i: "k1 $(( 1 + " + i + " ))"),
        index.map(lambda i: "(( a[" + i + "] = 1 ))"),
        index.map(lambda i: "(( " + i + " )) && k3"),
        index.map(lambda i: "a[" + i + "]=v k1"),
        index.map(lambda i: "a[" + i + "]=v"),
        index.map(lambda i: "a[" + i + "]+=(v)"),
        index.map(lambda i: "k1 ${a[" + i + "]}"),
        index.map(lambda i: 'k1 "${a[' + i + ']:-z}"'),
        index.map(lambda i: "k1 ${x:" + i + ":1}"),
        index.map(lambda i: "a=([" + i + "]=v)"),
        index.map(lambda i: "[[ a[" + i + "] -eq 1 ]]"),
        index.map(lambda i: "[[ -v a[" + i + "] ]]"),
        index.map(lambda i: "for (( a[" + i + "]=0; 0; )); do k3; done"),
        index.map(lambda i: "declare a[" + i + "]=v"),
        index.map(lambda i: "k1 $[ a[" + i + "] ]"),
        index.map(lambda i: "case $(( a[" + i + "] )) in 0) k3;; esac"),
    )


def functions(depth: int) -> st.SearchStrategy[str]:
    """``function f {}`` and the other ways to write a function, some called afterwards."""
    body = _small(depth - 1)
    definition = st.one_of(
        body.map(lambda s: "function f { " + s + "; }"),
        body.map(lambda s: "function f() { " + s + "; }"),
        body.map(lambda s: "function f ( ) { " + s + "; }"),
        body.map(lambda s: "function f\n{ " + s + "; }"),
        body.map(lambda s: "f()\n{\n" + s + "\n}"),
        body.map(lambda s: "f() ( " + s + " )"),
        body.map(lambda s: "function f ( " + s + " )"),
        body.map(lambda s: "f() if " + s + "; then k3; fi"),
        body.map(lambda s: "function f for v in a; do " + s + "; done"),
        body.map(lambda s: "f() { " + s + "; } > f"),
        body.map(lambda s: "f() { " + s + "; } <<E\nx $(k3)\nE"),
        body.map(lambda s: "function k1 { " + s + "; }"),
        body.map(lambda s: "function f.g-h { " + s + "; }"),
        body.map(lambda s: "f() [[ $(" + s + ") ]]"),
        body.map(lambda s: "f() (( $(" + s + ") ))"),
        st.just("function f {}"),
        st.just("f() {}"),
    )
    return st.tuples(definition, st.sampled_from(["", "; f", "\nf a", " && f"])).map("".join)


def here_strings(depth: int) -> st.SearchStrategy[str]:
    """``<<<`` with quoted and substituted words, and process substitution as a redirect target."""
    inner = _small(depth - 1)
    word = st.one_of(
        st.sampled_from(["w", "'$(k2)'", '"a b"', "$'a\\nb'", "$x", "\\$(k2)", "''"]),
        inner.map(lambda s: "$(" + s + ")"),
        inner.map(lambda s: '"$(' + s + ')"'),
        inner.map(lambda s: "`" + s + "`"),
        inner.map(lambda s: "<(" + s + ")"),
    )
    target = st.one_of(
        inner.map(lambda s: "> >(" + s + ")"),
        inner.map(lambda s: "< <(" + s + ")"),
        inner.map(lambda s: "2> >(" + s + " >&2)"),
        inner.map(lambda s: "&> >(" + s + ")"),
        inner.map(lambda s: ">> >(" + s + ")"),
        inner.map(lambda s: ">>(" + s + ")"),
        inner.map(lambda s: "<<(" + s + ")"),
        inner.map(lambda s: "<>(" + s + ")"),
        inner.map(lambda s: "> $(" + s + ")"),
        inner.map(lambda s: '> "$(' + s + ')"'),
    )
    return st.one_of(
        st.tuples(st.sampled_from(["<<<", "<<< ", "0<<<", "3<<<"]), word).map(
            lambda t: "k1 " + t[0] + t[1]
        ),
        st.tuples(word, st.sampled_from(["", " | k2", " && k2"])).map(
            lambda t: "k1 <<<" + t[0] + t[1]
        ),
        target.map(lambda t: "k1 " + t),
        target.map(lambda t: "exec 3" + t.lstrip("0123456789&")),
        target.map(lambda t: "{ k1; } " + t),
        target.map(lambda t: "while k1; do k2; done " + t),
        st.tuples(word, target).map(lambda t: "k1 <<<" + t[0] + " " + t[1]),
    )


_INVALID = (
    "k1 ${ k2; }",
    "k1 ${|k2;}",
    'k1 "${ k2; }"',
    "k1 ${(k2)}",
    "k1 ${$(k2)}",
    "k1 ${u:-${ k2; }}",
    "k1 ${x[$(k2)",
    "k1 $[ $(k2) ]",
    "k1 $( (k2) )",
    "k1 $((k2) )",
    "k1 $((k2))",
    "k1 $((k2); k3)",
    "k1 $(( (k2) ))",
    "k1 $( ( k2 ); k3 )",
    "k1 ${u:-$(k2}",
    "k1 ${u:-`k2}`",
    "k1 ${`k2`}",
    "k1 ${!`k2`}",
    "k1 ${#$(k2)}",
    "k1 ${u/$(k2)}",
    "k1 $(case x in x) k2;; esac)",
    "k1 $(case x in (x) k2;; esac)",
    'k1 "$(case x in x) k2;; esac)"',
    "k1 `case x in x) k2;; esac`",
    "k1 $(cat <<E\n)\nE\n)",
    "k1 $(k2 <<< ')')",
    "k1 $(k2 ')' \")\" \\))",
    "k1 $(k2 # )\n)",
    "k1 $(echo $(( 1 )) $((k2)))",
    "{k1;}",
    "{ k1;}",
    "{ k1 }",
    "k1 }",
    "(k1)",
    "((k1))",
    "( (k1) )",
    "k1 && \n k2",
    "k1 |\n\n k2",
    "! ! k1",
    "!k1",
    "! (k1)",
    "time time k1",
    "k1 &;",
    "k1 & ; k2",
    "k1 &&",
    "k1 ;;",
    "if k1; then k2; fi; fi",
    "done",
    "k1 )",
)


def invalid_forms(depth: int) -> st.SearchStrategy[str]:
    """``${ cmd; }``-like forms bash 5.2 does not have, and near misses bash does read."""
    del depth
    return st.sampled_from(_INVALID)


_ALIASES = (
    "\\rm x",
    "r''m x",
    'r""m x',
    "'r'm x",
    "r\\m x",
    "$'\\x72'm x",
    "$'r'm x",
    '$"rm" x',
    "{r,}m x",
    "{rm,x}",
    "{k1,-a,b}",
    "r{m,} x",
    "{,r}m x",
    "k{1..2} a",
    "$u k1 a",
    '"" k1',
    "'' k1",
    "${u}k1 a",
    "${u:-k1} a",
    "${u-k1}",
    '"${u:-k1}" a',
    "$(echo k1) a",
    "`echo k1` a",
    "command k1",
    "builtin k1",
    "exec k1",
    "\\exec k1",
    "e\\xec k1",
    "nohup k1",
    "env k1",
    "time k1",
    "\\time k1",
    "'time' k1",
    "t'i'me k1",
    "\\! k1",
    "'!' k1",
    "\\{ k1; }",
    "'{' k1; }",
    "\\if k1",
    "'if' k1",
    "\\[[ x ]]",
    "'[[' x ]]",
    "\\case x",
    "A=1 \\rm x",
    "\\A=1 k1",
    "A\\=1 k1",
    "'A'=1 k1",
    "A=1 'B=2' k1",
    "k\\1 a",
    "./k1",
    "k1\\ a",
    "~/k1",
    "*",
    "[k]1",
)


def alias_tricks(depth: int) -> st.SearchStrategy[str]:
    """Program names written so an alias or a keyword would not apply, or made by brace expansion."""
    del depth
    return st.tuples(
        st.sampled_from(_ALIASES), st.sampled_from(["", "; k3", " | k3", " &&\nk3"])
    ).map("".join)


def corners(depth: int) -> st.SearchStrategy[str]:
    """Any corner of the second wave (depth bounds how deep corners nest in corners)."""
    return st.one_of(
        nested_parameters(depth).map(lambda w: "k1 " + w),
        backticks_in_substitutions(depth).map(lambda w: "k1 " + w),
        continuations(depth),
        comments(depth),
        ansi_c(depth),
        heredocs_inside(depth),
        cases(depth),
        regexes(depth),
        subscripts(depth),
        functions(depth),
        here_strings(depth),
        invalid_forms(depth),
        alias_tricks(depth),
    )


CORNERS = st.one_of(
    corners(1),
    st.tuples(corners(1), st.sampled_from(["; ", "\n", " && ", " | "]), corners(0)).map("".join),
    st.tuples(TIME_PREFIXES, corners(1)).map("".join),
)
"""The second wave of hard corners, alone, in sequence and behind ``!``/``time``."""


_CONDITIONAL_WORDS = st.sampled_from(
    [
        "x",
        '"$x"',
        "'a b'",
        "a",
        "(a|b)",
        "@(a|b)",
        "!(a)",
        "^(foo|bar)$",
        "a<b",
        "a&&b",
        "a;b",
        "a|b",
        "[<]",
        "(<)",
        '"<"',
        "\\<",
        "\\(",
        "$(k1)",
        "`k2`",
        '"$(k1)"',
        "a(b)",
    ]
)
_CONDITIONAL_OPERATORS = st.sampled_from(
    ["==", "=~", "!=", "=", "<", ">", "-f", "-n", "-eq", "-nt", "&&", "||", "!", "(", ")", '"=="']
)
_CONDITIONAL_FORMS = st.one_of(
    st.tuples(_CONDITIONAL_WORDS, _CONDITIONAL_OPERATORS, _CONDITIONAL_WORDS).map(" ".join),
    st.tuples(_CONDITIONAL_OPERATORS, _CONDITIONAL_WORDS).map(" ".join),
    st.lists(st.one_of(_CONDITIONAL_WORDS, _CONDITIONAL_OPERATORS), min_size=1, max_size=7).map(
        " ".join
    ),
)
CONDITIONALS = st.tuples(
    _CONDITIONAL_FORMS, st.sampled_from(["", " && k3", " || k3", "; k3", " | k3"])
).map(lambda t: f"[[ {t[0]} ]]{t[1]}")
"""``[[ ]]`` of words bash splits where a parser may not, and operator soups, then a command."""
