"""
The reader against bash itself: no measured reading may miss a command bash runs.

Every check here reads a text with `read_shell` and asks the confined bash
oracle (`oracle.bash.read`) what it makes of the same text; `oracle.harness`
compares the two. A reading that is unmeasured claims nothing and passes;
a measured one must account for every command bash ran, agree with bash's
canonical re-print on the commands and heredocs there are, and be a text
bash accepts.

A mismatch found here is a release blocker: add the text to
``tests/data/oracle/mismatches.jsonl`` (with what differed and why), fix the
reader, and keep the row — the corpus is replayed on every run.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from shell.test_misparses import MISPARSES

from gateway._read._words import decode_ansi_c
from oracle import bash, grammar
from oracle.harness import Comparison, compare

MISMATCHES = Path(__file__).resolve().parents[1] / "data" / "oracle" / "mismatches.jsonl"

ORACLE_SETTINGS = settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def _agrees(comparison: Comparison) -> None:
    assert comparison.mismatches == (), (
        f"{comparison.text!r} (read as {comparison.reading.status}): "
        + "; ".join(f"{m.kind}: {m.detail}" for m in comparison.mismatches)
    )


def _mismatch_rows() -> list[dict[str, str]]:
    with MISMATCHES.open(encoding="utf-8") as lines:
        return [json.loads(line) for line in lines if line.strip()]


@pytest.mark.parametrize("row", _mismatch_rows(), ids=lambda row: row["kind"])
def test_every_mismatch_ever_found_now_agrees_with_bash(row: dict[str, str]) -> None:
    _agrees(compare(row["text"]))


@pytest.mark.parametrize("case", MISPARSES, ids=[case.id for case in MISPARSES])
def test_the_known_misparses_agree_with_bash(case: object) -> None:
    source = getattr(case, "source")  # noqa: B009 -- the table's rows are NamedTuples of another module
    _agrees(compare(source))


# The constructs the reader measures although bashlex cannot read them, or
# tree-sitter could not: each is measured, and bash agrees.
COVERED = {
    "or-inside-substitution": 'x=$(command -v git || true) && echo "$x"',
    "and-inside-substitution": "echo $(cd src && ls)",
    "multi-line-substitution": "x=$(\n  ls |\n  wc -l\n)\necho $x",
    "several-heredocs-on-a-line": "cat <<A <<'B'\na $(id)\nA\nb $(id)\nB",
    "heredocs-of-two-commands": "cat <<A && cat <<B\na\nA\nb\nB",
    "dash-before-heredoc": "python3 - <<'PY'\nprint(1)\nPY",
    "dash-before-heredoc-then-and": "git commit -F - <<'EOF' && git push\nmsg\nEOF",
    "kubectl-apply-heredoc": "kubectl apply -f - <<'EOF'\nkind: Pod\nEOF",
    "quoted-tab-heredoc-then-and": "cat <<-\\EOF &&\n\tx\n\tEOF\necho done",
    "escaped-dollar-in-body": "cat <<EOF\n\\$X and $Y\nEOF",
    "partly-quoted-delimiter": 'cat <<EO"F"\n$(not run)\nEOF',
    "case-statement": "case $x in\n  a|b) echo ab ;;\n  *) touch z ;;\nesac",
    "case-fallthrough": "case $x in a) echo a;& b) rm -f y;;& *) ls;; esac",
    "case-substitutions": "case $(id -u) in $(whoami)) echo me;; esac",
    "quoted-heredoc-body-opener-in-substitution": "echo \"$(\ncat <<'EOF' | wc -l\n$(\nEOF\n)\"",
    "backtick-in-single-quoted-assignment": "x='a`b'; echo \"$x\"",
    "opener-in-single-quotes-after-a-word": "x=a'$(id)' k2; echo a'`b' x'<(b'",
    "time-before-a-pipeline": "time k1 -v | wc -l",
    "coproc-named-group": 'coproc CP { k1 "$(k2)"; } > f; k3 "${CP[0]}" "$CP_PID"',
    "coproc-simple": "coproc k1 a | k2 && coproc N k1",
    "coproc-in-substitution": 'x="$(coproc CP ( k1 ))"',
    "time-p-and-negations": "time -p k1 && ! time k2 || time ! k3",
    "time-p-double-dash": "time -p -- k1 a; time -- k2",
    "time-inside-substitution": 'x="$(time k1 2>&1)"; if time k2 > f; then k3; fi',
    "time-before-a-heredoc": "time k1 <<EOF\n$(k2)\nEOF",
    "select-loop": 'select v in a "$(k1)" c; do k2 "$v" "$REPLY"; break; done',
    "select-without-words": "select v; do k2; break; done",
    "extglob-in-double-brackets": "[[ $x == @(a|b) || $x != !(c*) ]] && k1",
}


@pytest.mark.parametrize("text", COVERED.values(), ids=COVERED.keys())
def test_a_covered_construct_is_measured_and_agrees_with_bash(text: str) -> None:
    comparison = compare(text)
    assert comparison.measured, comparison.reading.reason
    _agrees(comparison)


ANSI_C = [
    "\\x72m",
    "\\x{72}\\x{6d}",
    "\\x{4142}",
    "\\x{41",
    "\\x{}a",
    "\\x{zz}",
    "\\c\\\\x",
    "\\cé",
    "\\c?",
    "\\c",
    "\\u00e9",
    "\\ud800",
    "\\U00110000",
    "\\0101",
    "a\\0b",
    "\\xc3\\xa9",
    "\\xc3",
]


@pytest.mark.parametrize("escaped", ANSI_C)
def test_an_ansi_c_string_decodes_as_bash_decodes_it(escaped: str) -> None:
    printed = bash.run(f"builtin printf '%s' $'{escaped}'").stdout
    try:
        expected: str | None = printed.decode("utf-8")
    except UnicodeDecodeError:
        expected = None  # the value is not exact text
    assert decode_ansi_c(escaped) == expected


@ORACLE_SETTINGS
@given(grammar.SHELL)
def test_generated_hard_corners_never_disagree_with_bash(text: str) -> None:
    _agrees(compare(text))


@ORACLE_SETTINGS
@given(grammar.HEREDOC_IN_SUBSTITUTION)
def test_heredocs_inside_substitutions_never_disagree_with_bash(text: str) -> None:
    _agrees(compare(text))


@ORACLE_SETTINGS
@given(grammar.SINGLE_QUOTED_OPENERS)
def test_openers_between_single_quotes_never_disagree_with_bash(text: str) -> None:
    _agrees(compare(text))


@ORACLE_SETTINGS
@given(grammar.KEYWORDS)
def test_time_select_and_coproc_never_disagree_with_bash(text: str) -> None:
    _agrees(compare(text))


@ORACLE_SETTINGS
@given(grammar.COPROC)
def test_coprocesses_never_disagree_with_bash(text: str) -> None:
    _agrees(compare(text))


@ORACLE_SETTINGS
@given(grammar.CONDITIONALS)
def test_conditional_words_and_grammar_never_disagree_with_bash(text: str) -> None:
    _agrees(compare(text))


@ORACLE_SETTINGS
@given(grammar.EXTGLOB)
def test_extended_patterns_never_disagree_with_bash(text: str) -> None:
    _agrees(compare(text))


@ORACLE_SETTINGS  # small texts: 60 examples took 10 s on a loaded machine
@given(grammar.CORNERS)
def test_second_wave_corners_never_disagree_with_bash(text: str) -> None:
    _agrees(compare(text))
