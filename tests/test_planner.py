"""
Statement plans (SEMANTICS.md §1, issue 3): what each top-level statement would run, as data.

One test (or one parametrized table) per rule: walk order, rendering by source
slice and its truncation, statement kinds, free and bound variables,
background, and heredocs — flat indexes, byte offsets and addresses that
resolve through `expand_fragment` to the published body.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

import gateway._read
from gateway._plan import TRUNCATION_MARKER
from gateway.plans import (
    PLAN_RENDER_LIMIT,
    FragmentAddr,
    Plan,
    PlannedHeredoc,
    ProgramPlan,
    expand_fragment,
    plan_program,
)

CORPUS = Path(__file__).parent / "data" / "corpus"


def measured(source: str) -> ProgramPlan:
    plan = plan_program(source)
    assert plan.status == "measured", plan.reason
    return plan


def only_plan(source: str) -> Plan:
    plan = measured(source)
    assert len(plan.statements) == 1
    return plan.statements[0].plan


def names(source: str) -> list[str]:
    return [command.name for command in only_plan(source).commands]


def heredocs_of(plan: Plan) -> list[PlannedHeredoc]:
    return [heredoc for command in plan.commands for heredoc in command.heredocs]


def text(heredoc: PlannedHeredoc) -> str:
    assert heredoc.body.plain is not None
    return heredoc.body.plain


# ───────────────────────── walk order ─────────────────────────

WALK_ORDER = [
    ("a | b | c", ["a", "b", "c"]),
    ("a && b || c; ", ["a", "b", "c"]),
    ("if a; then b; elif c; then d; else e; fi", ["a", "b", "c", "d", "e"]),
    ("while a; do b; done", ["a", "b"]),
    ("until a; do b; done", ["a", "b"]),
    ("for x in $(a) y; do b; done", ["a", "b"]),
    ("for ((i = 0; i < $(a); i++)); do b; done", ["a", "b"]),
    ("{ a; (b; c); }", ["a", "b", "c"]),
    ("a $(b) c", ["a", "b"]),
    ("a $(b $(c)) $(d)", ["a", "b", "c", "d"]),
    ('echo "$(a "$(b)")"', ["echo", "a", "b"]),
    ("a `b`", ["a", "b"]),
    ("diff <(a) <(b)", ["diff", "a", "b"]),
    ("x=$(a) y=`b`", ["a", "b"]),
    ("X=$(a) cmd $(b) > $(c)", ["cmd", "a", "b", "c"]),
    ("a > $(b)", ["a", "b"]),
    ("echo ${x:-$(a)} ${z[$(b)]}", ["echo", "a", "b"]),
    ("[[ $(a) == x ]] && (( $(b) > 1 ))", ["a", "b"]),
    ("f() { a; b; }", ["a", "b"]),
    ("while read l; do echo $l; done < <(ls)", ["ls", "read", "echo"]),
    ("cat <<EOF | b\n$(a)\nEOF", ["cat", "a", "b"]),
    ("cat <<'EOF' | b\n$(a)\nEOF", ["cat", "b"]),
    ('cat <<"EOF"\n$(a) `b`\nEOF', ["cat"]),
    ("cat <<\\EOF\n$(a)\nEOF", ["cat"]),
    ("cat <<EOF > $(b)\n$(a)\nEOF", ["cat", "b", "a"]),
    ("cat <<A\n$(cat <<B\nin\nB\n)\nA", ["cat", "cat"]),
]


@pytest.mark.parametrize(
    ("source", "expected"), WALK_ORDER, ids=[source for source, _ in WALK_ORDER]
)
def test_commands_are_listed_in_walk_order(source: str, expected: list[str]) -> None:
    """Pipeline stages left to right, conditions then bodies, substitutions after their command."""
    assert names(source) == expected


def test_compound_redirect_substitution_runs_before_the_body() -> None:
    """Bash opens a compound command's redirections before its body runs, so `$(i)` comes first."""
    plan = only_plan("if a; then b; else c; fi > $(i)")
    assert [c.name for c in plan.commands] == ["i", "a", "b", "c"]
    assert [c.context for c in plan.commands] == ["substitution", "command", "command", "command"]
    assert all(c.redirects[0].inherited for c in plan.commands[1:])


def test_commands_carry_the_context_they_run_in() -> None:
    source = "f() { g; }; a $(b) <(c) <<EOF\n$(d)\nEOF"
    plan = measured(source)
    function, statement = (s.plan for s in plan.statements)
    assert [(c.name, c.context) for c in function.commands] == [("g", "function")]
    assert [(c.name, c.context) for c in statement.commands] == [
        ("a", "command"),
        ("b", "substitution"),
        ("c", "process_substitution"),
        ("d", "heredoc"),
    ]


def test_substitutions_only_in_quoted_heredoc_bodies_run_nothing() -> None:
    plan = only_plan("cat <<'EOF'\n$(rm -rf /) `reboot` $((1+1))\nEOF")
    assert [c.name for c in plan.commands] == ["cat"]
    (heredoc,) = heredocs_of(plan)
    assert heredoc.literal
    assert heredoc.holes == 0
    assert heredoc.free_variables == ()


def test_nested_statements_belong_to_their_top_level_statement() -> None:
    plan = measured("for f in a b; do rm $f; ls; done; echo done")
    assert [[c.name for c in s.plan.commands] for s in plan.statements] == [["rm", "ls"], ["echo"]]
    assert [s.index for s in plan.statements] == [0, 1]


def test_a_bare_assignment_runs_only_its_substitutions() -> None:
    plan = only_plan("x=$(date) y=1")
    assert [c.name for c in plan.commands] == ["date"]
    assert plan.statement_kind == "assignment"


def test_commands_are_never_cut_even_when_the_rendering_is(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The reading budget is wall-clock time: a loaded machine must not make
    # this 18 KB text unmeasured (the budget itself is the reader's own test).
    monkeypatch.setattr(gateway._read, "PARSE_BUDGET_SECONDS", 120.0)
    source = " && ".join(f"cmd{i:04d} {'x' * 40}" for i in range(400))
    plan = only_plan(source)
    assert len(source.encode()) > PLAN_RENDER_LIMIT
    assert plan.rendered.endswith(TRUNCATION_MARKER)
    assert [c.name for c in plan.commands] == [f"cmd{i:04d}" for i in range(400)]


# ───────────────────────── rendering ─────────────────────────


@pytest.mark.parametrize(
    ("source", "rendered"),
    [
        ("a;  b  ; c", ["a", "b", "c"]),
        ("a & b", ["a &", "b"]),
        ("echo $f ${g}  'q'", ["echo $f ${g}  'q'"]),
        ("ls \\\n  -la", ["ls \\\n  -la"]),
        ('x=1\n\n# comment\necho "$x"', ["x=1", 'echo "$x"']),
        ("cat <<'EOF' && echo done\nbody\nEOF", ["cat <<'EOF' && echo done\nbody\nEOF"]),
    ],
    ids=["semicolons", "background", "unexpanded", "continuation", "comments", "heredoc"],
)
def test_rendered_is_the_statement_source_slice_unexpanded(
    source: str, rendered: list[str]
) -> None:
    assert [s.plan.rendered for s in measured(source).statements] == rendered


def _statement_of_bytes(size: int, tail: str = "") -> str:
    """`echo xxx…` + ``tail`` with exactly ``size`` UTF-8 bytes."""
    fill = size - len(b"echo ") - len(tail.encode())
    return "echo " + "x" * fill + tail


def test_rendering_of_exactly_the_limit_is_not_cut() -> None:
    source = _statement_of_bytes(PLAN_RENDER_LIMIT)
    assert only_plan(source).rendered == source


def test_rendering_one_byte_over_the_limit_is_cut_with_a_marker() -> None:
    source = _statement_of_bytes(PLAN_RENDER_LIMIT + 1)
    rendered = only_plan(source).rendered
    assert rendered == source[:PLAN_RENDER_LIMIT] + TRUNCATION_MARKER
    assert str(PLAN_RENDER_LIMIT) in TRUNCATION_MARKER


_STRADDLING = [
    (character, before)
    for character in ("é", "✓", "😀")
    for before in range(1, len(character.encode()))
]


@pytest.mark.parametrize(
    ("character", "bytes_before_cut"),
    _STRADDLING,
    ids=[f"{len(c.encode())}-byte-cut-after-{n}" for c, n in _STRADDLING],
)
def test_rendering_is_cut_on_a_utf8_boundary(character: str, bytes_before_cut: int) -> None:
    """A character that straddles byte 8,192 is dropped whole, never split."""
    # The character starts `width - bytes_before_cut` bytes before the limit, so the
    # limit falls `bytes_before_cut` bytes into it.
    width = len(character.encode())
    head = _statement_of_bytes(PLAN_RENDER_LIMIT - bytes_before_cut)
    source = head + character + "y" * 10
    assert len(head.encode()) + width > PLAN_RENDER_LIMIT
    rendered = only_plan(source).rendered
    assert rendered == head + TRUNCATION_MARKER
    assert len(rendered.encode()) - len(TRUNCATION_MARKER.encode()) <= PLAN_RENDER_LIMIT


def test_multibyte_character_ending_exactly_at_the_limit_is_kept() -> None:
    source = _statement_of_bytes(PLAN_RENDER_LIMIT, tail="😀")
    assert only_plan(source + "z").rendered == source + TRUNCATION_MARKER


# ───────────────────────── statement kinds ─────────────────────────

KINDS = [
    ("ls -la", "command"),
    ("[ -f x ]", "command"),
    ("A=1 B=2 make", "env_scoped"),
    ("x=1", "assignment"),
    ("x=1 y=$(date)", "assignment"),
    ("ls | wc -l", "pipeline"),
    ("ls > out", "pipeline"),
    ("! ls", "pipeline"),
    ("ls &", "pipeline"),
    ("(ls) > out", "pipeline"),
    ("{ a; b; } &", "pipeline"),
    ("cat <<EOF\nx\nEOF", "pipeline"),
    ("a && b && c", "and_chain"),
    ("a && b &", "and_chain"),
    ("a || b", "or_chain"),
    ("a && b || c", "list"),
    ("(cd a && make)", "subshell"),
    ("{ a; b; }", "group"),
    ("if a; then b; fi", "if"),
    ("for f in a b; do echo $f; done", "for"),
    ("for ((i = 0; i < 3; i++)); do echo $i; done", "for"),
    ("while true; do ls; done", "while"),
    ("until false; do ls; done", "until"),
    ("f() { ls; }", "function"),
    ("function f { ls; }", "function"),
    ("[[ -f x ]]", "test"),
    ("(( i++ ))", "arith"),
]


@pytest.mark.parametrize(("source", "kind"), KINDS, ids=[s for s, _ in KINDS])
def test_statement_kind_follows_the_documented_shape_rules(source: str, kind: str) -> None:
    assert only_plan(source).statement_kind == kind


def test_case_statements_are_planned_with_the_commands_of_every_arm() -> None:
    """A `case` is one statement of kind `case`; each arm's commands are planned, none dropped."""
    plan = plan_program("case $x in a) echo a;; b) rm -rf q;; esac")
    assert plan.status == "measured"
    (statement,) = plan.statements
    assert statement.plan.statement_kind == "case"
    assert [tuple(w and w.plain for w in c.argv) for c in statement.plan.commands] == [
        ("echo", "a"),
        ("rm", "-rf", "q"),
    ]


def test_coproc_is_a_one_stage_pipeline_whose_command_runs_in_the_background() -> None:
    plan = plan_program("coproc cat")
    assert plan.status == "measured", plan.reason
    (statement,) = plan.statements
    assert statement.plan.statement_kind == "pipeline"
    (command,) = statement.plan.commands
    assert command.name == "cat"
    assert command.background


CASES = [
    ("case $x in a) echo a;; esac", ["echo"], ("x",)),
    ("case $(id -u) in 0) echo root;; esac", ["id", "echo"], ()),
    ("case $x in $(whoami)) echo me;; esac", ["whoami", "echo"], ("x",)),
    ("case $x in a) echo a;& b) rm -f y;;& *) ls;; esac", ["echo", "rm", "ls"], ("x",)),
]


@pytest.mark.parametrize(("source", "names", "free"), CASES, ids=[s for s, _, _ in CASES])
def test_case_statements_are_planned_with_every_command_of_subject_patterns_and_arms(
    source: str, names: list[str], free: tuple[str, ...]
) -> None:
    """bashlex cannot read `case`; the readers' consensus can (tests/oracle checks it against bash)."""
    plan = plan_program(source)
    assert plan.status == "measured", plan.reason
    (statement,) = plan.statements
    assert statement.plan.statement_kind == "case"
    assert [c.name for c in statement.plan.commands] == names
    assert statement.plan.free_variables == free


# ───────────────────────── variables ─────────────────────────

FREE = [
    ("echo $x ${y}", ("x", "y")),
    ("echo ${#z} ${w:-$d}", ("d", "w", "z")),
    ("echo ${a[$i]} ${!p}", ("a", "i", "p")),
    ("echo $((n + 1)) $(( m * 2 ))", ("m", "n")),
    ("echo $b $a $b", ("a", "b")),
    ("echo $(printf %s $inner)", ("inner",)),
    ("cat <<EOF\n$body ${more}\nEOF", ("body", "more")),
    ("cat <<'EOF'\n$literal\nEOF", ()),
    ("echo $1 $? $$ $@ $# $! $- $0 $* ${10} ${#@}", ()),
    ("read T && echo $T", ("T",)),
    ("unset Z; echo $Z", ()),
    ("declare Q; echo $Q", ()),
    ("export B && echo $B", ("B",)),
    ("echo $HOME ~", ("HOME",)),
]


@pytest.mark.parametrize(("source", "free"), FREE, ids=[s for s, _ in FREE])
def test_free_variables_are_sorted_root_names_read_and_not_bound(
    source: str, free: tuple[str, ...]
) -> None:
    assert measured(source).statements[0].plan.free_variables == free


def test_runtime_binders_do_not_bind_lexically() -> None:
    """`read`, `unset`, `declare NAME` and `export NAME` bind at run time only."""
    plan = only_plan("read T && unset U && declare V && export W && echo $T $U $V $W")
    assert plan.bound_variables == ()
    assert plan.free_variables == ("T", "U", "V", "W")


BOUND = [
    ("x=1", ("x",)),
    ("A=1 B=2 make", ("A", "B")),
    ("for f in a; do :; done", ("f",)),
    ("export A=1 B", ("A",)),
    ("local x=1; readonly r=2", ("x",)),
    ("f() { ls; }", ()),
    ("arr[3]=x", ("arr",)),
    ("x+=1", ("x",)),
]


@pytest.mark.parametrize(("source", "bound"), BOUND, ids=[s for s, _ in BOUND])
def test_bound_variables_are_the_lexical_binders(source: str, bound: tuple[str, ...]) -> None:
    assert measured(source).statements[0].plan.bound_variables == bound


@pytest.mark.parametrize(
    "source",
    [
        "x=1 && echo $x",
        "x=$x",
        "for i in 1 2; do echo $i; done",
        "for i in 1; do cat <<EOF\n$i\nEOF\ndone",
        "X=$X make",
    ],
)
def test_a_name_both_read_and_bound_is_bound_only(source: str) -> None:
    plan = only_plan(source)
    assert set(plan.bound_variables).isdisjoint(plan.free_variables)
    assert plan.free_variables == ()
    assert plan.bound_variables


def test_variables_are_per_statement() -> None:
    plan = measured("x=1; echo $x")
    assert [(s.plan.free_variables, s.plan.bound_variables) for s in plan.statements] == [
        ((), ("x",)),
        (("x",), ()),
    ]


# ───────────────────────── background ─────────────────────────


@pytest.mark.parametrize(
    "source",
    ["sleep 5 &", "a | b | c &", "a && b &", "{ a; b; } &", "a $(b) &", "(a; b) &"],
)
def test_every_command_of_a_background_statement_is_background(source: str) -> None:
    commands = only_plan(source).commands
    assert commands
    assert all(c.background for c in commands)


def test_background_ends_at_its_own_statement() -> None:
    plan = measured("a & b")
    assert [[c.background for c in s.plan.commands] for s in plan.statements] == [[True], [False]]


def test_background_inside_a_loop_body_marks_only_that_command() -> None:
    plan = only_plan("for f in $(ls) a; do rm $f & done")
    assert [(c.name, c.background) for c in plan.commands] == [("ls", False), ("rm", True)]


# ───────────────────────── redirects ─────────────────────────


def test_redirects_spell_the_operator_as_written() -> None:
    command = only_plan("cmd <<< w > a 2>> b < c 2>&1 &> d >&-").commands[0]
    assert [
        (r.kind, None if r.target is None else r.target.display) for r in command.redirects
    ] == [
        ("<<<", "w"),
        (">", "a"),
        ("2>>", "b"),
        ("<", "c"),
        ("2>&1", None),
        ("&>", "d"),
        (">&-", None),
    ]


def test_a_compound_redirect_is_inherited_by_its_commands() -> None:
    plan = only_plan("{ a; b > own; } > shared")
    a, b = plan.commands
    assert [(r.kind, r.inherited) for r in a.redirects] == [(">", True)]
    assert [(r.kind, r.target and r.target.display, r.inherited) for r in b.redirects] == [
        (">", "own", False),
        (">", "shared", True),
    ]


# ───────────────────────── heredocs ─────────────────────────


def test_heredoc_in_a_loop_body() -> None:
    source = "for i in 1 2; do\ncat <<EOF\n$i $(date)\nEOF\ndone"
    plan = only_plan(source)
    assert [(c.name, c.context) for c in plan.commands] == [("cat", "command"), ("date", "heredoc")]
    (heredoc,) = heredocs_of(plan)
    assert (heredoc.index, heredoc.delimiter, heredoc.literal) == (0, "EOF", False)
    assert text(heredoc) == "$i $(date)\n"
    assert heredoc.free_variables == ("i",)
    assert heredoc.holes == 1
    assert plan.bound_variables == ("i",)


def test_heredocs_in_if_branches_are_indexed_across_branches() -> None:
    source = "if true; then\ncat <<A\nleft\nA\nelse\ncat <<B\nright\nB\nfi"
    plan = measured(source)
    first, second = heredocs_of(plan.statements[0].plan)
    assert [(h.index, h.delimiter, text(h)) for h in (first, second)] == [
        (0, "A", "left\n"),
        (1, "B", "right\n"),
    ]
    assert expand_fragment(source, FragmentAddr(statement=0, heredoc=1)).complete == "right\n"


def test_heredoc_in_a_pipeline_feeds_its_own_stage() -> None:
    plan = only_plan("cat <<A | tr a b\nhi $(whoami)\nA")
    assert [(c.name, len(c.heredocs)) for c in plan.commands] == [
        ("cat", 1),
        ("whoami", 0),
        ("tr", 0),
    ]
    assert plan.statement_kind == "pipeline"


def test_heredoc_with_a_substitution_in_a_redirect_target() -> None:
    source = 'cat <<EOF >> "$(date)".log\nbody\nEOF'
    plan = only_plan(source)
    cat = plan.commands[0]
    assert [(r.kind, r.target and r.target.display) for r in cat.redirects] == [
        ("<<", "EOF"),
        (">>", '"$(date)".log'),
    ]
    assert [c.name for c in plan.commands] == ["cat", "date"]
    assert text(cat.heredocs[0]) == "body\n"


def test_heredoc_fed_to_a_compound_is_published_on_its_first_command() -> None:
    plan = only_plan("while read l; do echo $l; done <<EOF\na\nEOF")
    assert [(c.name, len(c.heredocs)) for c in plan.commands] == [("read", 1), ("echo", 0)]


@pytest.mark.parametrize("shell", ["bash", "sh"])
def test_a_group_s_heredoc_is_the_shell_text_its_first_command_reads(shell: str) -> None:
    # The group's first command has no redirect of its own: the heredoc it
    # takes is still its standard input, and the shell runs what it holds.
    plan = only_plan(f"{{ {shell}; }} <<EOF\nrm -rf ~/x\nEOF")
    (command,) = plan.commands
    (nested,) = command.nested
    assert nested.via == f"{shell} <<EOF"
    assert [c.name for inner in nested.plans for c in inner.commands] == ["rm"]


def test_heredoc_fed_to_a_compound_that_runs_no_command_is_still_published() -> None:
    plan = only_plan("{ x=1; } <<EOF\na\nEOF")
    (command,) = plan.commands
    assert command.name == ""
    assert text(command.heredocs[0]) == "a\n"


def test_heredoc_keeps_the_rest_of_its_introducer_line_as_command_text() -> None:
    plan = only_plan("cat <<'EOF' && echo done\nbody\nEOF")
    assert [c.name for c in plan.commands] == ["cat", "echo"]
    assert plan.statement_kind == "and_chain"
    assert text(heredocs_of(plan)[0]) == "body\n"


@pytest.mark.parametrize(
    "source",
    [
        "cat <<A <<B\na\nA\nb\nB",
        "cat <<A; cat <<B\na\nA\nb\nB",
        "cat <<A | cat <<B\na\nA\nb\nB",
        "cat <<A && cat <<B\na\nA\nb\nB",
        "cat <<A 2<<B\na\nA\nb\nB",
    ],
    ids=["one-command", "two-statements", "pipeline", "and", "two-fds"],
)
def test_several_heredocs_on_one_line_are_read_in_order(source: str) -> None:
    """The bodies follow the line in the order of their operators, as bash reads them."""
    plan = plan_program(source)
    assert plan.status == "measured", plan.reason
    bodies = [
        (heredoc.delimiter, heredoc.body.plain)
        for statement in plan.statements
        for command in statement.plan.commands
        for heredoc in command.heredocs
    ]
    assert bodies == [("A", "a\n"), ("B", "b\n")]


def test_several_heredocs_on_separate_lines_are_collected_in_order() -> None:
    source = "{ cat <<A\na\nA\ncat <<'B'\nb\nB\ncat <<-C\n\tc\n\tC\n}"
    plan = only_plan(source)
    assert [(h.index, h.delimiter, h.literal, h.strip_tabs) for h in heredocs_of(plan)] == [
        (0, "A", False, False),
        (1, "B", True, False),
        (2, "C", False, True),
    ]


def test_flat_heredoc_indexes_follow_walk_order_into_substitutions() -> None:
    source = 'a "$(cat <<EOF\nx\nEOF\n)" && cat <<B\ny\nB'
    plan = only_plan(source)
    assert [(c.name, c.context, [h.index for h in c.heredocs]) for c in plan.commands] == [
        ("a", "command", []),
        ("cat", "substitution", [0]),
        ("cat", "command", [1]),
    ]


def test_heredoc_inside_a_heredoc_hole_is_indexed_after_its_host() -> None:
    source = "cat <<A\n$(cat <<B\nin\nB\n)\nA"
    plan = only_plan(source)
    outer, inner = heredocs_of(plan)
    assert (outer.index, outer.holes, inner.index, text(inner)) == (0, 1, 1, "in\n")
    assert expand_fragment(source, FragmentAddr(statement=0, heredoc=1)).complete == "in\n"


@pytest.mark.parametrize(
    ("introducer", "delimiter"),
    [("'EOF'", "EOF"), ('"EOF"', "EOF"), ("\\EOF", "EOF"), ("E\\OF", "EOF"), ("'E O'", "E O")],
)
def test_any_quoting_in_the_delimiter_makes_the_body_literal(
    introducer: str, delimiter: str
) -> None:
    plan = only_plan(f"cat <<{introducer}\n$x $(id)\n{delimiter}")
    (heredoc,) = heredocs_of(plan)
    assert heredoc.delimiter == delimiter
    assert heredoc.literal
    assert heredoc.free_variables == ()
    assert [c.name for c in plan.commands] == ["cat"]
    assert plan.commands[0].redirects[0].target is not None
    assert plan.commands[0].redirects[0].target.display == introducer


def test_strip_tabs_heredoc_publishes_the_body_with_its_tabs() -> None:
    source = "if true; then\n\tcat <<-EOF\n\t\tindented $V\n\tEOF\nfi"
    plan = only_plan(source)
    (heredoc,) = heredocs_of(plan)
    assert heredoc.strip_tabs
    assert text(heredoc) == "\t\tindented $V\n"
    expansion = expand_fragment(source, FragmentAddr(statement=0, heredoc=0), {"V": "v"})
    assert expansion.complete == "indented v\n"


def test_crlf_body_is_kept_verbatim() -> None:
    source = "cat <<EOF\nx\r\ny\r\nEOF"
    (heredoc,) = heredocs_of(only_plan(source))
    assert text(heredoc) == "x\r\ny\r\n"
    assert expand_fragment(source, FragmentAddr(statement=0, heredoc=0)).complete == "x\r\ny\r\n"


def test_crlf_on_the_delimiter_line_is_part_of_the_delimiter_so_the_body_never_ends() -> None:
    """In bash `EOF\\r` is the delimiter word; the readers disagree on it, so it is unmeasured."""
    assert plan_program("cat <<EOF\r\nx\r\nEOF\r\n").status == "unmeasured"


def test_non_ascii_body_offset_counts_bytes_not_characters() -> None:
    source = "echo 日本語 && cat <<EOF\nhéllo ✓ 😀\nEOF"
    (heredoc,) = heredocs_of(only_plan(source))
    body = text(heredoc)
    assert body == "héllo ✓ 😀\n"
    assert heredoc.body_offset == source.encode().index("héllo".encode())
    assert heredoc.body_offset != source.index("héllo")
    data = source.encode()
    assert data[heredoc.body_offset : heredoc.body_offset + len(body.encode())] == body.encode()


# ───────────────────────── published addresses resolve (property) ─────────────────────────

_LITERAL_CHARS = "abcXYZ019 .,:;=+-_/#%@!?()[]{}<>|&*'\"\t$~^"
# Unquoted bodies expand: leave out `$`; the readers leave `\` and backticks unmeasured.
_PLAIN_CHARS = _LITERAL_CHARS.replace("$", "")

_WRAPPERS = [
    "{units}",
    "if true; then\n{units}\nfi",
    "for i in 1 2; do\n{units}\ndone",
    "while false; do\n{units}\ndone",
    "{{\n{units}\n}}",
    "(\n{units}\n)",
    'echo "$(\n{units}\n)"',
]
_TAILS = ["", " | wc -l", " && echo ok", " > out.txt", " 2>/dev/null"]


@st.composite
def heredoc_units(
    draw: st.DrawFn, quotes: str = "'\"\\ ", *, may_strip_tabs: bool = True
) -> tuple[str, str, str]:
    """One command with a heredoc: (its text, the published body, what it expands to)."""
    quote = draw(st.sampled_from(quotes)).strip()
    strip = may_strip_tabs and draw(st.booleans())
    delimiter = draw(st.sampled_from(["EOF", "END", "PY", "SQL_1"]))
    chars = _LITERAL_CHARS if quote else _PLAIN_CHARS
    lines = draw(st.lists(st.text(alphabet=chars, max_size=16), max_size=4))
    lines = [line for line in lines if line.lstrip("\t") != delimiter]
    body = "".join(line + "\n" for line in lines)
    expanded = "".join(line.lstrip("\t") + "\n" for line in lines) if strip else body
    closing = "\t" + delimiter if strip and draw(st.booleans()) else delimiter
    word = {"'": f"'{delimiter}'", '"': f'"{delimiter}"', "\\": f"\\{delimiter}", "": delimiter}
    tail = draw(st.sampled_from(_TAILS))
    operator = "<<-" if strip else "<<"
    return f"cat {operator}{word[quote]}{tail}\n{body}{closing}", body, expanded


@st.composite
def heredoc_programs(draw: st.DrawFn) -> tuple[str, list[list[tuple[str, str]]]]:
    """Statements, each a wrapper around heredoc commands; with the expected bodies per statement."""
    statements: list[str] = []
    expected: list[list[tuple[str, str]]] = []
    for _ in range(draw(st.integers(1, 3))):
        wrapper = draw(st.sampled_from(_WRAPPERS))
        if wrapper.startswith("echo"):
            # Known reader limits: bashlex ends a `$( )` early when a heredoc is
            # followed by another command inside it, and cannot read `<<\EOF`
            # or `<<-` there, so those calls are unmeasured.
            units = [draw(heredoc_units(quotes="'\" ", may_strip_tabs=False))]
        else:
            units = draw(st.lists(heredoc_units(), min_size=1, max_size=3))
        if wrapper == "{units}":  # bare: each heredoc command is a statement of its own
            statements.extend(unit for unit, _, _ in units)
            expected.extend([(body, expanded)] for _, body, expanded in units)
            continue
        statements.append(wrapper.format(units="\n".join(unit for unit, _, _ in units)))
        expected.append([(body, expanded) for _, body, expanded in units])
    return "\n".join(statements), expected


def test_a_substitution_opened_in_a_quoted_body_inside_one_is_text() -> None:
    """The body's `$(` is text to bash: the plan has the three commands bash runs, and the body."""
    plan = plan_program("echo \"$(\ncat <<'EOF' | wc -l\n$(\nEOF\n)\"")
    assert plan.status == "measured"
    commands = plan.statements[0].plan.commands
    assert [command.name for command in commands] == ["echo", "cat", "wc"]
    assert commands[1].heredocs[0].body.plain == "$(\n"


@settings(max_examples=60, deadline=None)
@given(heredoc_programs())
def test_every_published_address_expands_to_its_published_body(
    program: tuple[str, list[list[tuple[str, str]]]],
) -> None:
    source, expected = program
    plan = measured(source)
    data = source.encode()
    assert len(plan.statements) == len(expected)
    for statement, bodies in zip(plan.statements, expected, strict=True):
        heredocs = heredocs_of(statement.plan)
        assert [h.index for h in heredocs] == list(range(len(bodies)))
        for heredoc, (body, expanded) in zip(heredocs, bodies, strict=True):
            assert text(heredoc) == body
            raw = body.encode()
            assert data[heredoc.body_offset : heredoc.body_offset + len(raw)] == raw
            addr = FragmentAddr(statement=statement.index, heredoc=heredoc.index)
            assert expand_fragment(source, addr).complete == expanded


# ───────────────────────── the corpora ─────────────────────────


def _corpus_commands() -> Iterator[str]:
    for name in ("agent", "nl2bash", "tldr"):
        with (CORPUS / f"{name}.jsonl").open(encoding="utf-8") as lines:
            for line in lines:
                yield str(json.loads(line)["cmd"])


def _check_body_offsets(plan: Plan, data: bytes) -> int:
    """Check every heredoc of ``plan`` (and of the shell text it launches) against its source."""
    checked = 0
    for command in plan.commands:
        for heredoc in command.heredocs:
            body = heredoc.body.plain
            if body is None:  # a redacted body: its masked text is not in the source
                continue
            raw = body.encode()
            assert data[heredoc.body_offset : heredoc.body_offset + len(raw)] == raw
            checked += 1
        for nested in command.nested:
            # Nested plans are planned from the nested text: their offsets are into it.
            if nested.text is not None and nested.text.plain is not None:
                inner = nested.text.plain.encode()
                checked += sum(_check_body_offsets(p, inner) for p in nested.plans)
    return checked


@pytest.mark.corpus
def test_body_offsets_slice_every_heredoc_body_out_of_every_corpus_command() -> None:
    """`source.encode()[off:off+len(body)] == body` for every heredoc, in all three corpora.

    The same pass checks the other per-statement invariants that must hold on real traffic:
    renderings are slices of the source in order, heredoc indexes are 0..n-1, and the
    free and bound variable lists are sorted, de-duplicated and disjoint.
    """
    checked = 0
    for source in _corpus_commands():
        plan = plan_program(source)
        if plan.status != "measured":
            assert plan.statements == ()
            continue
        data = source.encode()
        position = 0
        for statement in plan.statements:
            rendered = statement.plan.rendered
            if not rendered.endswith(TRUNCATION_MARKER):
                found = plan.source.find(rendered, position)  # both masked alike
                assert found >= 0, (source, rendered)
                position = found + len(rendered)
            free, bound = statement.plan.free_variables, statement.plan.bound_variables
            assert list(free) == sorted(set(free))
            assert list(bound) == sorted(set(bound))
            assert set(free).isdisjoint(bound)
            heredocs = heredocs_of(statement.plan)
            assert [h.index for h in heredocs] == list(range(len(heredocs)))
            checked += _check_body_offsets(statement.plan, data)
    assert checked > 1000  # the agent corpus alone holds about 1,400 heredocs


@pytest.mark.parametrize(
    ("source", "bound"),
    [
        ("for ((i=0;i<3;i++)); do echo $i; done", ("i",)),
        ("(( n+=2 ))", ("n",)),
        ("echo $((++k))", ("k",)),
        ("echo $((j--))", ("j",)),
        ("echo $((a[2]=1))", ("a",)),
    ],
)
def test_arithmetic_assignments_bind_their_variable(source: str, bound: tuple[str, ...]) -> None:
    """`i=0`, `n+=2`, `++k` and `j--` inside arithmetic bind the name, so it is not free."""
    plan = plan_program(source).statements[0].plan
    assert plan.bound_variables == bound
    assert not set(bound) & set(plan.free_variables)
    assert not set(bound) & set(plan.arithmetic_variables)


def test_arithmetic_comparison_binds_nothing() -> None:
    plan = plan_program("echo $((a==b)) $((c!=d)) $((e<=f))").statements[0].plan
    assert plan.bound_variables == ()
    assert plan.free_variables == ("a", "b", "c", "d", "e", "f")


def test_busybox_is_not_read_as_a_shell() -> None:
    """`busybox wget URL` runs wget, not a shell script called `wget`."""
    command = plan_program("busybox wget http://h/x").statements[0].plan.commands[0]
    assert command.position.runs_shell is False
    assert command.nested == ()
