"""
Hostile shapes for a whole review: texts built to make reading, planning or judging slow or large.

Each shape is a generator: `Shape.text(n)` is the text with ``n`` repetitions
of its unit, and `Shape.at_most(limit)` the largest instance of at most
``limit`` UTF-8 bytes (so every shape is tried at the reader's 64 KiB limit and
at smaller sizes, to see how its cost grows). The classes are what an attacker
who reads the planner would try: values that double at every assignment,
functions that call each other twice, long pipelines and lists, launchers
stacked on launchers, thousands of effects (paths, redirections, directory
changes), big numbers in arithmetic, huge brace expansions, and programs
whose run never ends or floods its output.

The table is the tests' (``tests/budgets/test_budgets.py``) and the
benchmark's (``benchmarks/bounds.py``): one place for every shape.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final, NamedTuple

LIMIT: Final = 65_536
"""The reader's limit on a text, in UTF-8 bytes (`gateway._read._limits.MAX_SOURCE_BYTES`)."""


class Shape(NamedTuple):
    """One hostile shape: a name, what it attacks, and its generator of ``n`` units."""

    name: str
    attacks: str
    make: Callable[[int], str]

    def text(self, n: int) -> str:
        """The text with ``n`` units."""
        return self.make(n)

    def at_most(self, limit: int = LIMIT) -> str:
        """The largest instance of at most ``limit`` UTF-8 bytes (found by bisection on ``n``)."""
        low, high = 1, 1
        while _size(self.make(high)) <= limit and high < 1 << 22:
            low, high = high, high * 2
        while high - low > 1:
            middle = (low + high) // 2
            if _size(self.make(middle)) <= limit:
                low = middle
            else:
                high = middle
        return self.make(low)


def _size(text: str) -> int:
    return len(text.encode("utf-8", "surrogatepass"))


def _repeat(head: str, unit: str, tail: str = "") -> Callable[[int], str]:
    return lambda n: head + unit * n + tail


def _numbered(head: str, unit: str, tail: str = "", joiner: str = "") -> Callable[[int], str]:
    return lambda n: head + joiner.join(unit.format(i=i, j=i + 1) for i in range(n)) + tail


def _calls_twice(n: int) -> str:
    """``f0`` calls ``f1`` twice, which calls ``f2`` twice…: 2**n calls if every call were planned."""
    bodies = "".join(f"f{i}() {{ f{i + 1}; f{i + 1}; }}; " for i in range(n))
    return bodies + f"f{n}() {{ rm x; }}; f0"


def _aliases_twice(n: int) -> str:
    """Aliases that each expand to two of the next: 2**n words if every expansion were followed."""
    lines = "".join(f"alias a{i}='a{i + 1} a{i + 1}'\n" for i in range(n))
    return "shopt -s expand_aliases\n" + lines + f"alias a{n}=ls\na0\n"


SHAPES: Final[tuple[Shape, ...]] = (
    # ── values that grow faster than the text ──
    Shape(
        "doubling-assignment",
        "a value doubles per assignment",
        _repeat("a=x; ", "a=$a$a; ", "echo $a"),
    ),
    Shape("doubling-quoted", "a quoted value doubles", _repeat("a=x; ", 'a="$a$a"; ', 'echo "$a"')),
    Shape("doubling-braces", "a braced value doubles", _repeat("a=x; ", "a=${a}${a}; ", "cat $a")),
    Shape("doubling-append", "a value doubles by +=", _repeat("a=x; ", "a+=$a; ", "cat $a")),
    Shape(
        "doubling-export",
        "a value doubles through export",
        _repeat("a=x; ", "export a=$a$a; ", "ls $a"),
    ),
    Shape(
        "doubling-declare",
        "a value doubles through declare",
        _repeat("a=x; ", "declare a=$a$a; ", "ls $a"),
    ),
    Shape(
        "doubling-printf-v",
        "a value doubles through printf -v",
        _repeat("a=x; ", 'printf -v a %s%s "$a" "$a"; ', "ls $a"),
    ),
    Shape(
        "doubling-two-names",
        "two values grow as Fibonacci numbers",
        _repeat("a=x; b=y; ", "a=$a$b; b=$b$a; ", "ls $a $b"),
    ),
    Shape(
        "doubling-path",
        "a path doubles, then is read",
        _repeat("p=a/; ", "p=$p$p; ", "cat $p/f"),
    ),
    Shape(
        "doubling-words",
        "the number of words doubles",
        _repeat("a=x; ", 'a="$a $a"; ', "ls $a"),
    ),
    Shape(
        "doubling-array",
        "an array doubles",
        _repeat("a=(x); ", 'a=("${a[@]}" "${a[@]}"); ', 'ls "${a[@]}"'),
    ),
    Shape(
        "doubling-substitution",
        "a pattern substitution doubles",
        _repeat("a=x; ", "a=${a/x/xx}$a; ", "ls $a"),
    ),
    Shape(
        "doubling-in-subshells",
        "a value doubles inside nested subshells",
        lambda n: "a=x; " + "( a=$a$a; " * min(n, 60) + "ls $a" + " )" * min(n, 60),
    ),
    Shape(
        "doubling-in-function",
        "a function doubles a value each call",
        _repeat("a=x; d() { a=$a$a; }; ", "d; ", "ls $a"),
    ),
    Shape(
        "doubling-heredoc",
        "a doubled value in an expanding heredoc",
        _repeat("a=x; ", "a=$a$a; ", "cat <<E\n$a $(ls $a)\nE"),
    ),
    Shape(
        "doubling-nested-shell",
        "a doubled value handed to bash -c",
        _repeat("a=x; ", "a=$a$a; ", 'bash -c "ls $a"'),
    ),
    # ── calls and expansions ──
    Shape("functions-calling-twice", "each function calls the next twice", _calls_twice),
    Shape("aliases-twice", "each alias expands to two of the next", _aliases_twice),
    Shape("brace-product", "a brace expansion of 2**n words", _repeat("echo ", "{a,b}")),
    Shape("brace-product-paths", "2**n paths read", _repeat("cat ", "{a,b}", "/f")),
    Shape(
        "brace-range", "a range of a billion words", lambda n: "echo {1.." + "9" * min(n, 18) + "}"
    ),
    Shape("brace-ranges", "ranges within the limit, many of them", _repeat("echo ", "{1..99999} ")),
    Shape("arith-power", "a huge power in arithmetic", lambda n: "echo $(( " + "9**" * n + "9 ))"),
    Shape(
        "arith-shift", "huge shifts in arithmetic", _repeat("x=1; ", "x=$(( x << 62 )); ", "ls $x")
    ),
    Shape(
        "arith-square",
        "a number squared again and again",
        _repeat("x=99; ", "x=$(( x * x )); ", "ls $x"),
    ),
    Shape(
        "arith-let-square",
        "a number squared by let",
        _repeat("x=99; ", "let x=x*x; ", "ls $x"),
    ),
    Shape(
        "arith-digits", "a number of thousands of digits", lambda n: "echo $(( " + "9" * n + " ))"
    ),
    # ── many stages, statements, launchers ──
    Shape("pipeline", "a pipeline of n stages", _repeat("", "a | ", "a")),
    Shape("pipeline-cat", "a pipeline of cats", _repeat("cat f", " | cat")),
    Shape("and-list", "a list of n commands joined by &&", _repeat("", "a && ", "a")),
    Shape("or-list", "a list joined by ||", _repeat("", "a || ", "a")),
    Shape("statements", "n statements", _repeat("", "ls; ")),
    Shape("lines", "n lines", _repeat("", "ls\n")),
    Shape("background", "n background jobs", _repeat("", "sleep 1 & ")),
    Shape("negations", "n ! on one pipeline", lambda n: "! " * n + "ls"),
    Shape("launchers-env", "env stacked n times", _repeat("", "env ", "ls")),
    Shape("launchers-mixed", "launchers stacked", _repeat("", "nice nohup env ", "ls")),
    Shape("launchers-sudo", "sudo stacked", _repeat("", "sudo ", "ls")),
    Shape("launchers-time", "time stacked", _repeat("", "time ", "ls")),
    Shape("xargs-chain", "xargs stacked", _repeat("", "xargs ", "ls")),
    Shape(
        "nested-bash-c",
        "bash -c in bash -c, each level quoting the next",
        lambda n: _nested_shell(n),
    ),
    Shape("eval-chain", "eval stacked", _repeat("", "eval ", "ls")),
    Shape("find-exec-many", "find with many -exec", _repeat("find . ", "-exec ls {} ; ")),
    # ── many effects ──
    Shape("paths-many", "one command reading n paths", _numbered("cat ", " f{i}")),
    Shape("paths-home", "n paths in the home", _numbered("cat ", " ~/.f{i}")),
    Shape("paths-dotdot", "a path climbing n times", _repeat("cat ", "a/../", "f")),
    Shape("paths-slashes", "a path of n segments", _repeat("cat ", "a/", "f")),
    Shape("paths-globs", "globs in every segment", _repeat("cat ", "*/", "f")),
    Shape("paths-glob-classes", "bracket globs in every segment", _repeat("cat ~/", ".[a]/", "f")),
    Shape("redirects", "n redirections", _numbered("ls", " >f{i}")),
    Shape("redirects-append", "n appends to the home", _numbered("ls", " >>~/f{i}")),
    Shape("cd-many", "n directory changes", _numbered("", "cd d{i}; ", "cat f")),
    Shape("cd-up-down", "directory changes up and down", _repeat("", "cd a; cd ..; ", "cat f")),
    Shape("pushd-many", "n pushd", _numbered("", "pushd d{i}; ", "cat f")),
    Shape("assignments", "n assignments", _numbered("", "v{i}=x; ", "ls")),
    Shape(
        "assignments-chained",
        "n names each from the last",
        _numbered("v0=x; ", "v{j}=$v{i}; ", "ls"),
    ),
    Shape("exports", "n exports", _numbered("", "export V{i}=x; ", "ls")),
    Shape("functions-many", "n functions", _numbered("", "f{i}() {{ ls; }}; ", "f0")),
    Shape("substitutions", "n substitutions", _repeat("echo ", "$(ls) ")),
    Shape(
        "substitutions-nested",
        "substitutions nested 60 deep, repeated",
        lambda n: ("echo " + "$(" * 60 + "ls" + ")" * 60 + "; ") * n,
    ),
    Shape("heredocs", "n expanding heredocs with holes", _repeat("", "cat <<E\n$(ls)\nE\n")),
    Shape("heredoc-holes", "one heredoc with n holes", _repeat("cat <<E\n", "$(ls) ", "\nE")),
    Shape("process-substitutions", "n process substitutions", _repeat("cat ", "<(ls) ")),
    Shape(
        "awk-system",
        "an awk program of n system() calls",
        lambda n: "awk 'BEGIN{" + 'system("ls");' * n + "}'",
    ),
    Shape("sed-scripts", "sed with n expressions", _repeat("sed", " -e s/a/b/")),
    Shape("git-configs", "git with n -c", _repeat("git", " -c a.b=c", " status")),
    Shape("options-many", "n options", _repeat("ls", " -l")),
    Shape("words-many", "n words", _repeat("echo", " a")),
    Shape("parameters-many", "n parameter expansions in one word", _repeat("echo ", "${x:-a}")),
    Shape("case-arms", "a case of n arms", _numbered("case $x in ", "a{i}) ls;; ", "esac")),
    Shape("if-elif", "an if of n elifs", _repeat("if a; then b; ", "elif a; then b; ", "fi")),
    Shape("loops", "n loops", _repeat("", "for f in *; do cat $f; done; ")),
    Shape(
        "loops-nested",
        "loops nested 60 deep, repeated",
        lambda n: ("for a in b; do " * 60 + "ls" + "; done" * 60 + "; ") * n,
    ),
    Shape("conditionals", "a [[ ]] of n terms", _repeat("[[ a ", "&& a ", "]]")),
    Shape("multibyte", "n four-byte characters", _repeat("echo ", "\U0001f600")),
    Shape("secrets-many", "n secrets to mask", _numbered("echo", " ghp_{i:036d}")),
    # ── runs that never end or flood their output ──
    Shape("sleep-infinity", "a command that never ends", lambda n: "sleep infinity"),
    Shape("seq-inf", "an endless sequence", lambda n: "seq inf"),
    Shape("printf-width", "two gigabytes of output", lambda n: "printf '%*s' 2147483647 x"),
    # ── text the reader must refuse without raising ──
    Shape("lone-surrogate", "a lone surrogate", lambda n: "echo \udcff" * max(n, 1)),
)


def _nested_shell(n: int) -> str:
    """``bash -c`` nested ``n`` levels, each level quoting the next."""
    text = "ls"
    for _ in range(n):
        text = "bash -c " + "'" + text.replace("'", "'\\''") + "'"
        if len(text) > LIMIT:
            break
    return text


BY_NAME: Final = {shape.name: shape for shape in SHAPES}
