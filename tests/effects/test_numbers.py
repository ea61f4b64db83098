"""
Where bash evaluates text as a number, and whether the plan says code may run there.

Bash evaluates a value it reads as a number as an expression, and a
subscript in it is expanded first: ``x="a[\\$(id)]"; echo $((x))`` runs
``id``. Each site is planned and run with bash 5.2, confined, with the
loggers recording whether ``id`` ran: where bash ran it the plan states an
``expansion`` or a number of ``unknown`` origin; where it did not (the
harmless twins) the plan states neither, so an allow may stand there.
"""

from __future__ import annotations

import pytest

from effects.support import in_bash, number_sites, runs_code

PAYLOAD = 'x="a[\\$(id)]"; '
"""Binds ``x`` to the text ``a[$(id)]`` (in double quotes: the readers read it the same way)."""

RUNS = [
    ("arithmetic-expansion", PAYLOAD + "echo $((x))"),
    ("old-arithmetic", PAYLOAD + "echo $[x]"),
    ("arithmetic-command", PAYLOAD + "(( x ))"),
    ("arithmetic-for", PAYLOAD + "for ((i = 0; i < x; i++)); do :; done"),
    ("array-subscript", PAYLOAD + "declare -a b; echo ${b[x]}"),
    ("substring-offset", PAYLOAD + "s=abc; echo ${s:x}"),
    ("substring-length", PAYLOAD + "s=abc; echo ${s:0:$x}"),
    ("double-brackets-comparison", PAYLOAD + "[[ $x -eq 1 ]]"),
    ("double-brackets-literal", "[[ 'a[$(id)]' -eq 1 ]]"),
    ("double-brackets-v", PAYLOAD + "[[ -v $x ]]"),
    ("test-v-literal", "test -v 'a[$(id)]'"),
    ("bracket-v-literal", "[ -v 'a[$(id)]' ]"),
    ("test-v-of-a-value", PAYLOAD + 'test -v "$x"'),
    ("let", 'let "y=a[\\$(id)]"'),
    ("declare-dynamic-name", PAYLOAD + 'declare "$x=1"'),
    ("declare-integer-value", 'declare -i n="a[\\$(id)]"'),
    ("integer-variable-assigned-later", PAYLOAD + "declare -i n; n=$x"),
    ("read-into-a-subscript", "read 'a[$(id)]' <<< 1"),
    ("printf-v-into-a-subscript", "printf -v 'a[$(id)]' 1"),
    ("wait-p-into-a-subscript", "sleep 0 & wait -n -p 'a[$(id)]'"),
    ("unset-a-subscript", "declare -a a; unset 'a[$(id)]'"),
    ("nameref-to-a-subscript", 'declare -n r="a[\\$(id)]"; echo $r'),
    ("indirect", PAYLOAD + "echo ${!x}"),
    ("default-then-arithmetic", ': ${x:="a[\\$(id)]"}; echo $((x))'),
    ("bound-through-another-name", PAYLOAD + "y=x; echo $((y))"),
    ("rebound-from-a-file", "i=1; read -r i < f; echo $((i))"),
    ("from-outside", "echo $((x))"),
    # The integer attribute, however it is given, then any binding form.
    ("integer-read-here-string", "declare -i x; read -r x <<< 'a[$(id)]'"),
    ("typeset-integer-read-from-a-file", "typeset -i x; read -r x < f"),
    ("exported-integer-read", "declare -x -i x; read -r x < f"),
    ("global-integer-from-a-function", "g() { declare -gi x; }; g; read -r x < f"),
    ("local-integer-read", "g() { local -i x; read -r x < f; }; g"),
    ("integer-while-read", "declare -i x; while read -r x; do :; done < f"),
    ("integer-read-in-a-group", "declare -i x; printf '%s' 'a[$(id)]' | { read -r x; }"),
    ("integer-read-in-a-subshell", "declare -i x; (read -r x) < f"),
    ("integer-mapfile", "declare -i x; mapfile x < f"),
    ("integer-read-array", "declare -i x; read -ra x < f"),
    ("integer-printf-v", "declare -i x; printf -v x %s 'a[$(id)]'"),
    ("integer-export", "declare -i x; export x='a[$(id)]'"),
    ("integer-readonly", "declare -i x; readonly x='a[$(id)]'"),
    ("integer-default", "declare -i x; : ${x:='a[$(id)]'}"),
    ("integer-for", "declare -i x; for x in 'a[$(id)]'; do :; done"),
    ("integer-append", "declare -i x; read -r y < f; x+=$y"),
    ("integer-array-element", "declare -ai x; read -r y < f; x=($y)"),
    ("integer-through-a-nameref", "declare -i x; declare -n r=x; read -r r < f"),
    ("nameref-given-the-integer-attribute", "declare -n r=x; declare -i r; read -r x < f"),
    # The shell's own integer variables.
    ("optind-assigned", "OPTIND='a[$(id)]'"),
    ("optind-read", "read -r OPTIND < f"),
    ("random-assigned", "RANDOM='a[$(id)]'"),
    ("histcmd-exported", "export HISTCMD='a[$(id)]'"),
    ("seconds-read-as-an-array", "mapfile SECONDS < f"),
    ("bashpid-element", "BASHPID[0]='a[$(id)]'"),
    # A nameref whose target is a value: reading through it evaluates the subscript.
    ("nameref-to-a-value-read", "read -r n < f; declare -n r=$n; echo $r"),
    ("nameref-named-later", "declare -n r; read -r r < f; echo $r"),
    ("nameref-named-by-assignment", "declare -n r; r='a[$(id)]'; echo $r"),
]
"""Sites where bash runs ``id`` (the file ``f`` holds ``a[$(id)]``; ``x`` comes from outside in the last)."""

HARMLESS = [
    ("bracket-eq-reads-an-integer", PAYLOAD + '[ "$x" -eq 1 ]'),
    ("bracket-gt-literal", "[ 'a[$(id)]' -gt 0 ]"),
    ("test-lt", PAYLOAD + 'test "$x" -lt 1'),
    ("printf-d-reads-an-integer", PAYLOAD + "printf '%d\\n' \"$x\""),
    ("shift-reads-an-integer", PAYLOAD + 'shift "$x"'),
    ("exit-reads-an-integer", PAYLOAD + 'exit "$x"'),
    ("wait-for-the-last-job", 'sleep 0 & wait "$!"'),
    ("literal-arithmetic", "echo $(( 1 + 2 ))"),
    ("call-bound-number", "n=5; echo $((n * 2))"),
    ("loop-over-literals", "for i in 1 2 3; do echo $((i)); done"),
    ("arithmetic-assignment-first", "(( i = 0 )); echo $((i + 1))"),
    ("length-is-a-number", PAYLOAD + "echo $(( ${#x} + 1 ))"),
    ("status-is-a-number", "ls; echo $(( $? + 1 ))"),
    ("integer-variable-from-a-literal", "declare -i n; n=4; echo $((n))"),
    ("read-without-the-integer-attribute", PAYLOAD + 'read -r y <<< "$x"; echo "$y"'),
    ("integer-attribute-after-the-value", PAYLOAD + "declare -i x"),
    ("prefix-to-an-integer", PAYLOAD + "declare -i n; n=$x :"),
    ("integer-attribute-taken-back", "declare -i n; declare +i n; n='a[$(id)]'"),
    ("nameref-to-a-literal-name", "declare -n r=n; r=1; echo $r"),
    ("optind-given-a-number", "OPTIND=1; set -- -a; getopts a o"),
    ("getopts-digit-into-an-integer", "declare -i n; set -- -1; getopts 1 n"),
]
"""Look-alikes where bash evaluates nothing it cannot see, and runs nothing."""


def _files(source: str) -> dict[str, str]:
    return {"f": "a[$(id)]\n"} if "< f" in source else {}


@pytest.mark.parametrize(("name", "source"), RUNS, ids=[r[0] for r in RUNS])
def test_where_bash_runs_the_expansion_the_plan_says_so(name: str, source: str) -> None:
    run = in_bash(source, files=_files(source), stdin="")
    if name != "from-outside":  # nothing in the confinement sets x
        assert ("id",) in run.logged, run.stderr
    assert runs_code(source), number_sites(source)


@pytest.mark.parametrize(("name", "source"), HARMLESS, ids=[r[0] for r in HARMLESS])
def test_where_bash_runs_nothing_the_plan_allows_it(name: str, source: str) -> None:
    run = in_bash(source)
    assert ("id",) not in run.logged
    assert not runs_code(source), number_sites(source)


def test_a_quoted_subscript_after_a_long_prefix_is_still_a_site() -> None:
    source = "echo " + "x" * 8_200 + " && test -v 'a[$(id)]' && echo set"
    assert ("expansion", "a[$(id)]", "literal") in number_sites(source)


def test_a_variable_rebound_from_a_substitution_is_of_unknown_origin() -> None:
    sites = number_sites("i=1; i=$(cat f); echo $((i))")
    assert ("number", "i", "unknown") in sites
    assert ("number", "1", "call_bound") not in sites


def test_a_call_bound_value_is_given_with_its_origin() -> None:
    assert ("number", "5", "call_bound") in number_sites("n=5; echo $((n))")
    assert ("number", "a[$(id)]", "literal") in number_sites("test -v 'a[$(id)]'")
    assert ("expansion", "a[$(id)]", "call_bound") in number_sites(PAYLOAD + "echo $((x))")


def test_a_loop_that_rebinds_a_variable_makes_it_unknown_in_the_body() -> None:
    """The second time round ``$((i))`` reads what ``read`` put in ``i``."""
    source = "i=0; while :; do echo $((i)); read -r i < f; done"
    assert ("number", "i", "unknown") in number_sites(source)
