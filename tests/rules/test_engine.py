"""
The rules engine: every condition of the rule format, the precedence, and the whole-call checks.

Conditions are tested one by one on the command they read (`matches` on a
planned command); decisions through a `RulesApprover` built from a few
rules, so that each test shows one behaviour. Nothing here runs a command.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

import anyio
import msgspec
import pytest
from gateway_rules import RulesApprover
from gateway_rules._engine import JudgeContext
from gateway_rules._match import CommandView, Selectors, command_text
from gateway_rules._schema import Rule

from gateway import Abstain, Allow, Decline, Gateway, ReviewRequest, ToolCall
from gateway.effects import PLAN_FORMAT
from gateway.plans import PlannedCommand, iter_commands, plan_program
from rules.support import (
    approver_with,
    decision,
    default_approver,
    request_for,
    review,
    rules_only_config,
)


def commands(source: str) -> list[PlannedCommand]:
    plan = plan_program(source)
    assert plan.status == "measured", plan.reason
    return [command for s in plan.statements for command in iter_commands(s.plan)]


def make_rule(**fields: Any) -> Rule:
    table: dict[str, Any] = {"id": "t", "decision": "ask", "reason": "is a test"}
    table.update({key.replace("_", "-"): value for key, value in fields.items()})
    return msgspec.convert(table, Rule)


def hits(source: str, cwd: str | None = None, **fields: Any) -> bool:
    """True when the rule matches some command of ``source``."""
    rule = make_rule(**fields)
    selectors = Selectors(rule)
    return any(selectors.command(CommandView(command), cwd) for command in commands(source))


def first(source: str, **fields: Any) -> bool:
    """True when the rule matches the first command of ``source``."""
    return Selectors(make_rule(**fields)).command(CommandView(commands(source)[0]), None)


LS = {"id": "ls", "decision": "allow", "programs": ["ls"], "reason": "only lists"}
CAT = {"id": "cat", "decision": "allow", "programs": ["cat"], "reason": "only reads"}
READS = {
    "id": "reads",
    "decision": "allow",
    "reads": ["workspace", "temp", "system", "other", "stream"],
    "reason": "reads what holds no secret",
}
"""A program rule allows the program; the effects it has need rules of their own, like this one."""


# ───────────────────────── the program that really runs ─────────────────────────


def test_programs_match_the_basename_of_the_program_position() -> None:
    assert first("ls -la", programs=["ls"])
    assert first("/usr/bin/ls -la", programs=["ls"])
    assert first("/bin/ls", programs=["ls"])
    assert not first("lsblk", programs=["ls"])


def test_a_program_written_with_a_path_outside_the_system_directories_is_another_program() -> None:
    """`./ls` or `/tmp/ls` is whatever file sits there, not the system's ls."""
    assert not first("./ls", programs=["ls"])
    assert not first("/tmp/ls", programs=["ls"])  # noqa: S108 -- planned, never run
    assert not first("~/bin/ls", programs=["ls"])
    assert first("./ls", programs=["ls"], any_path=True)


def test_paths_pin_an_exact_program_path() -> None:
    assert first("/opt/tool/bin/tool run", paths=["/opt/tool/bin/tool"])
    assert not first("tool run", paths=["/opt/tool/bin/tool"])


def test_transparent_launchers_leave_the_program_to_the_rule() -> None:
    assert first("timeout 5 ls", programs=["ls"])
    assert first("nice -n 5 env LANG=C ls", programs=["ls"])
    assert decision(review("timeout 5 ls", approver=approver_with(LS, READS))) == "allow"


def test_an_opaque_launcher_asks_unless_a_rule_names_it() -> None:
    plain = approver_with(LS, READS)
    answer = review("flock /tmp/lock ls", approver=plain)
    assert decision(answer) == "ask"
    assert answer.reason == (
        "Asked about `flock /tmp/lock ls`: it runs through `flock`, which no rule allows."
    )
    lock = {"id": "lock", "decision": "allow", "writes": ["/tmp/lock"], "reason": "a lock"}  # noqa: S108
    naming = approver_with({**LS, "id": "ls.flock", "launchers": ["flock"]}, READS, lock)
    assert decision(review("flock /tmp/lock ls", approver=naming)) == "allow"


def test_launchers_match_any_step_of_the_chain() -> None:
    assert first("sudo -u root timeout 5 ls", launchers=["sudo"])
    assert first("sudo -u root timeout 5 ls", launchers=["timeout"])
    assert not first("ls", launchers=["sudo"])


# ───────────────────────── subcommands, prefixes, arguments ─────────────────────────


def test_prefix_matches_the_leading_arguments() -> None:
    assert first("git stash list", programs=["git"], prefix=["stash", "list"])
    assert not first("git stash", programs=["git"], prefix=["stash", "list"])
    assert not first("git stash drop list", programs=["git"], prefix=["stash", "list"])


# ───────────────────────── options in every spelling ─────────────────────────


def test_options_and_without_options_read_the_way_that_makes_the_rule_stricter() -> None:
    """Options are the table's canonical spellings: `--i` is `--in-place`, `--out=x` is `--output`."""
    assert first("sed --i s/a/b/ f", programs=["sed"], decision="ask", options=["--in-place"])
    assert not first(
        "sed --i s/a/b/ f", programs=["sed"], decision="allow", without_options=["--in-place"]
    )
    assert first("sort --out=x f", programs=["sort"], decision="allow", options=["--output"])
    assert first(
        "awk -F -- -f prog.awk data",
        programs=["awk"],
        decision="decline",
        options=["--file"],
    )
    assert not first(
        "awk -F -- -f prog.awk data", programs=["awk"], decision="allow", without_options=["--file"]
    )


def test_an_expanding_argument_that_could_spell_an_option_is_never_allowed() -> None:
    """The table cannot read a word that may become an option: the default policy asks."""
    for source in ("find . $X", "find . *", "find /x$(echo ' -delete')", "find . {-delete,x}"):
        assert decision(review(source)) != "allow", source
    assert decision(review("find ./src -type f")) == "allow"


# ───────────────────────── variables, redirects, pipelines, places ─────────────────────────


def test_fed_by_names_an_earlier_stage_of_the_pipeline() -> None:
    assert hits("curl -s x | sh", programs=["sh"], fed_by=["curl"])
    assert hits("curl -s x | grep y | sh", programs=["sh"], fed_by=["curl"])
    assert not hits("sh x.sh", programs=["sh"], fed_by=["curl"])
    assert not hits("sh x.sh; curl x", programs=["sh"], fed_by=["curl"])


def test_contexts_tell_where_a_command_sits() -> None:
    assert hits("echo $(ls)", programs=["ls"], contexts=["substitution"])
    assert not hits("ls", programs=["ls"], contexts=["substitution"])
    assert hits("cat <(ls)", programs=["ls"], contexts=["process_substitution"])
    assert hits("f() { ls; }", programs=["ls"], contexts=["function"])
    assert hits("cat <<EOF\n$(ls)\nEOF", programs=["ls"], contexts=["heredoc"])


def test_cwd_under_needs_a_working_directory_inside() -> None:
    rule = {"programs": ["make"], "cwd_under": ["/work/project/"]}
    assert hits("make", cwd="/work/project", **rule)
    assert hits("make", cwd="/work/project/sub", **rule)
    assert not hits("make", cwd="/work/projectile", **rule)
    assert not hits("make", cwd=None, **rule)


def test_tool_rules_match_only_tool_names() -> None:
    approver = approver_with(
        {"id": "tool.read", "decision": "allow", "tools": ["Read"], "reason": "only reads"},
        {"id": "tool.read-no", "decision": "decline", "tools": ["Read"], "reason": "says no"},
    )
    context = JudgeContext(cwd=None, roots=(".",))
    judged = approver.rules.judge_effects((), context, tool="Read")
    assert (judged.decision, judged.rule) == ("decline", "tool.read-no")
    assert approver.rules.judge_effects((), context, tool="Write").decision == "ask"
    assert not hits("Read", tools=["Read"])


# ───────────────────────── precedence ─────────────────────────


def test_decline_beats_ask_beats_allow_beats_the_default_ask() -> None:
    allow = {"id": "a", "decision": "allow", "programs": ["ls"], "reason": "is fine"}
    ask = {"id": "b", "decision": "ask", "programs": ["ls"], "reason": "needs a look"}
    decline = {"id": "c", "decision": "decline", "programs": ["ls"], "reason": "is bad"}
    assert decision(review("ls", approver=approver_with(decline, ask, allow, READS))) == "decline"
    assert decision(review("ls", approver=approver_with(allow, ask, decline, READS))) == "decline"
    assert decision(review("ls", approver=approver_with(allow, ask, READS))) == "ask"
    assert decision(review("ls", approver=approver_with(allow, READS))) == "allow"
    nothing = review("ls", approver=approver_with(ask | {"programs": ["other"]}))
    assert decision(nothing) == "ask"
    assert nothing.reason == "Asked about `ls`: no rule covers `ls`."


def test_the_strictest_command_of_a_call_decides() -> None:
    approver = approver_with(
        LS, CAT, READS, {"id": "rm", "decision": "decline", "programs": ["rm"], "reason": "removes"}
    )
    assert decision(review("ls | cat", approver=approver)) == "allow"
    assert decision(review("ls; cat x; other", approver=approver)) == "ask"
    assert decision(review("ls; other; rm x", approver=approver)) == "decline"
    assert decision(review("cat $(rm x)", approver=approver)) == "decline"


def test_an_unmeasured_call_is_never_allowed() -> None:
    everything = approver_with(
        {"id": "all", "decision": "allow", "reads": ["workspace"], "reason": "x"}
    )
    answer = review("echo 'unterminated", approver=everything)
    assert isinstance(answer, Abstain)
    assert answer.reason is not None
    assert answer.reason.startswith("The command could not be read with confidence")


def test_an_empty_call_and_a_redirect_alone() -> None:
    assert decision(review("", approver=approver_with(LS, READS))) == "allow"
    streams = {"id": "streams", "decision": "allow", "writes": ["stream"], "reason": "streams"}
    assert decision(review("> /dev/null", approver=approver_with(LS, READS))) == "ask"
    assert decision(review("> /dev/null", approver=approver_with(LS, READS, streams))) == "allow"
    written = review("> notes.txt", approver=approver_with(LS, READS, streams))
    assert decision(written) == "ask"
    assert "it writes `./notes.txt` (workspace)" in (written.reason or "")


def test_a_write_asks_unless_an_allow_rule_permits_writes() -> None:
    assert decision(review("ls > out.txt", approver=approver_with(LS, READS))) == "ask"
    out = {"id": "out", "decision": "allow", "writes": ["./out.txt"], "reason": "one file"}
    writer = approver_with(LS, READS, out)
    assert decision(review("ls > out.txt", approver=writer)) == "allow"


# ───────────────────────── nested shell text ─────────────────────────

SH = {
    "id": "sh",
    "decision": "allow",
    "programs": ["sh", "bash"],
    "executes": ["shell_text", "literal"],
    "reason": "runs shell text that is judged command by command",
}
RM = {"id": "rm", "decision": "decline", "programs": ["rm"], "reason": "removes files"}


def test_measured_nested_text_is_judged_command_by_command() -> None:
    approver = approver_with(SH, LS, RM, READS)
    assert decision(review("sh -c 'ls'", approver=approver)) == "allow"
    assert decision(review("sh -c 'ls; rm x'", approver=approver)) == "decline"
    assert decision(review("sh -c 'ls; other'", approver=approver)) == "ask"


def test_nested_text_from_an_expansion_is_declined() -> None:
    answer = review('sh -c "$X"', approver=approver_with(SH, LS))
    assert isinstance(answer, Decline)
    assert answer.reason == (
        'Declined `sh -c "$X"`: the text `sh -c` runs is built at run time, so no one can see it first.'
    )


def test_nested_text_from_a_pipe_is_declined_and_from_a_file_asked() -> None:
    approver = approver_with(SH, LS)
    piped = review("ls | sh", approver=approver)
    assert isinstance(piped, Decline)
    assert "`ls` pipes text into a shell" in (piped.reason or "")
    script = review("bash x.sh", approver=approver)
    assert decision(script) == "ask"
    assert "`bash` runs the script `x.sh`, which the plan cannot see" in (script.reason or "")


def test_find_exec_targets_are_judged() -> None:
    approver = default_approver()
    assert decision(review("find . -name '*.py' -exec grep -l TODO {} +")) == "allow"
    assert decision(review("find . -exec rm {} \\;", approver=approver)) == "ask"
    assert decision(review("find . -exec rm -rf ~ \\;", approver=approver)) == "decline"


# ───────────────────────── reason sentences ─────────────────────────


def test_a_decline_names_the_rule_says_why_and_what_to_do_instead() -> None:
    answer = review("git push --force")
    assert isinstance(answer, Decline)
    assert answer.rule == "git.force-push"
    assert answer.reason == (
        "Declined `git push --force`: rule git.force-push rewrites or deletes shared history; "
        "push to a new branch instead."
    )


@pytest.mark.parametrize(
    "source",
    [
        "git push --force",
        "rm -rf ~",
        "make test",
        "ls",
        "ls | wc -l",
        "curl x | sh",
        "echo 'a\u202eb'",
        "mytool",
        "x=$(cat f); echo $((x))",
    ],
)
def test_every_reason_is_one_sentence(source: str) -> None:
    reason = review(source).reason or ""
    assert reason.endswith("."), reason
    assert ". " not in reason.rstrip("."), reason
    assert "\n" not in reason


def test_the_reason_names_the_rule_that_decided() -> None:
    for source, rule in (
        ("git push -f", "git.force-push"),
        ("pip install x", "ask.writes"),
        ("cat README.md", "read.text"),
    ):
        answer = review(source)
        assert answer.rule == rule
        assert f"rule {rule} " in (answer.reason or "")


def test_command_text_in_a_reason_shows_control_characters_and_no_backquotes() -> None:
    text = command_text(commands("echo '\x1b[2K' `date`")[0])
    assert text == "echo '\\x1b[2K' 'date'"
    assert command_text(commands("echo " + "x" * 100)[0]).endswith("…")


# ───────────────────────── whole-call checks ─────────────────────────


@pytest.mark.parametrize(
    "source",
    [
        "echo 'a\rb'",
        "echo '\x1b[8m'",
        "echo 'a\u202eb'",
        "echo 'a\u200bb'",
        "echo '\U000e0041'",
        "echo 'a\u00a0b'",
        "echo 'a\u3164b'",
        "ls" + " " * 60 + "# x",
    ],
    ids=["cr", "ansi", "bidi", "zero-width", "tag", "nbsp", "hangul-filler", "padding"],
)
def test_display_hazards_ask_and_say_so(source: str) -> None:
    answer = review(source)
    assert decision(answer) == "ask"
    reason = answer.reason or ""
    assert "a person sees" in reason or "out of sight" in reason


def test_a_display_hazard_does_not_soften_a_decline() -> None:
    assert decision(review("rm -rf ~ # \u202e")) == "decline"


def test_plain_text_in_other_scripts_is_no_hazard() -> None:
    assert decision(review("echo 'naïve café 日本語 ✔️'")) == "allow"


def test_a_variable_that_changes_which_program_runs_declines_the_call() -> None:
    answer = review("for PATH in /tmp; do ls; done")
    assert isinstance(answer, Decline)
    assert "it sets `PATH`" in (answer.reason or "")


def test_an_unknown_upper_case_variable_asks() -> None:
    answer = review("GIT_DIR=/tmp/x git status")
    assert decision(answer) == "ask"
    assert "it sets `GIT_DIR`" in (answer.reason or "")
    assert decision(review("TZ=UTC LC_ALL=C date")) == "allow"
    assert decision(review("line=1; echo $line")) == "allow"


def test_a_variable_name_the_plan_cannot_see_asks() -> None:
    answer = review("export $v=1")
    assert decision(answer) == "ask"
    assert "a value only known when it runs" in (answer.reason or "")


def test_arithmetic_on_values_the_plan_cannot_see_asks() -> None:
    for source in (
        "echo $((x))",
        "n=$(cat f); echo $((n))",
        "for i in $(cat f); do echo $((i)); done",
        "[[ $n -gt 1 ]] && ls",
        "i=1; i=$(cat f); echo $((i))",
    ):
        assert decision(review(source)) == "ask", source
    for source in (
        "x=1; echo $((x + 1))",
        "for i in 1 2; do echo $((i)); done",
        "ls; [ $? -eq 0 ]",
        'read -r a b < f; [ "$a" = "$b" ]',
        # `[`, `printf %d` and `shift` read plain integers: bash evaluates nothing there.
        'read -r n < f; [ "$n" -eq 1 ]',
        "read -r n < f; printf '%d' \"$n\"",
    ):
        assert decision(review(source)) == "allow", source


def test_text_that_runs_code_when_evaluated_asks() -> None:
    answer = review("test -v 'a[$(id)]' && echo set")
    assert decision(answer) == "ask"
    assert "it expands text a second time, which runs any expansion in it (`-v`)" in (
        answer.reason or ""
    )


def test_a_variable_rule_judges_a_plain_assignment() -> None:
    answer = review("HISTFILE=/dev/null")
    assert isinstance(answer, Decline)
    assert answer.rule == "hide.history"
    assert answer.reason == (
        "Declined the call: rule hide.history hides what was run (it sets `HISTFILE` (`assignment`))."
    )


def test_a_function_the_call_defines_is_asked_about_and_its_body_judged() -> None:
    approver = approver_with(LS, RM)
    assert decision(review("ls() { ls -la; }; ls", approver=approver)) == "ask"
    assert decision(review("f() { rm x; }; ls", approver=approver)) == "decline"


def test_time_with_an_output_file_asks() -> None:
    approver = approver_with(LS, READS)
    assert decision(review("/usr/bin/time ls", approver=approver)) == "allow"
    answer = review("/usr/bin/time -o out.txt ls", approver=approver)
    assert decision(answer) == "ask"
    assert "it writes `./out.txt` (workspace)" in (answer.reason or "")


# ───────────────────────── holes, bodies, tools ─────────────────────────


def test_a_heredoc_hole_is_judged_through_the_gateway() -> None:
    async def main() -> tuple[str, str]:
        config = rules_only_config()
        approver = RulesApprover(config.approver["rules"], None)
        async with Gateway(config, approvers=[approver]) as gateway:
            with anyio.fail_after(10):
                bad = await gateway.review(
                    ToolCall("Bash", {"command": "cat <<EOF\n$(rm -rf ~)\nEOF"})
                )
                fine = await gateway.review(ToolCall("Bash", {"command": "cat <<EOF\n$(ls)\nEOF"}))
        return bad.decision, fine.decision

    assert anyio.run(main) == ("decline", "allow")


def test_a_body_question_without_a_shell_plan_abstains() -> None:
    request = msgspec.structs.replace(request_for("cat"), kind="body", body="text")
    answer = anyio.run(default_approver().review, request)
    assert isinstance(answer, Abstain)
    assert "not shell text" in (answer.reason or "")


def test_tools_that_are_not_shells_follow_the_tool_rules() -> None:
    def ask(tool: str) -> str:
        request = ReviewRequest(
            kind="call", call=ToolCall(tool, {"path": "x"}), digest="sha256:x", plan=None
        )
        return decision(anyio.run(default_approver().review, request))

    assert ask("Read") == "allow"
    assert ask("Write") == "ask"
    assert ask("SomethingElse") == "ask"


# ───────────────────────── remembered approvals ─────────────────────────
# (what a remembered approval may cover, attacker's view: tests/rules/test_remembered.py)


def in_memory() -> RulesApprover:
    """The default policy, remembering in this process only."""
    return RulesApprover({"memory": ""})


def test_offers_are_shown_before_anything_is_saved(tmp_path: Path) -> None:
    approver = RulesApprover({"memory": str(tmp_path / "memory.json")})
    request = request_for("mytool build --fast", session_id="s1")
    offers = approver.offers(request)
    assert [(offer.scope, offer.prefix) for offer in offers] == [
        ("digest", ()),
        ("session", ()),
        ("prefix", ("build", "--fast")),
        ("prefix", ("build",)),
        ("prefix", ()),
    ]
    assert offers[3].description == (
        "Allow `mytool build` followed by anything again without asking, wherever it runs, "
        "unless a rule declines it or asks every time."
    )
    assert all(offer.covers for offer in offers)
    assert approver.propose(request, "prefix", ["build", "--fast"]).prefix == ("build", "--fast")
    assert not (tmp_path / "memory.json").exists()
    assert approver.remembered == []


def test_a_digest_approval_allows_exactly_that_command_again(tmp_path: Path) -> None:
    approver = RulesApprover({"memory": str(tmp_path / "memory.json")})
    request = request_for("make build")
    assert decision(anyio.run(approver.review, request)) == "ask"
    approver.remember(request, "digest", note="ok", decided_by="alice")
    again = anyio.run(approver.review, request_for("make build"))
    assert isinstance(again, Allow)
    assert again.rule == f"remembered.{approver.remembered[0].id}"
    assert again.reason is not None
    assert "a person (alice) asked on 20" in again.reason
    assert decision(anyio.run(approver.review, request_for("make install"))) == "ask"


def test_a_digest_approval_of_another_plan_format_is_never_reused(tmp_path: Path) -> None:
    """A remembered digest from before the plan's shape changed (no ``plan-format``: 1) lapses."""
    path = tmp_path / "memory.json"
    request = request_for("make build")
    approval = in_memory().propose(request, "digest")
    assert approval.plan_format == PLAN_FORMAT
    old = msgspec.to_builtins(approval)
    del old["plan_format"]
    path.write_bytes(msgspec.json.encode([old]))
    approver = RulesApprover({"memory": str(path)})
    assert approver.remembered[0].plan_format == 1
    assert decision(anyio.run(approver.review, request)) == "ask"
    approver.remember(request, "digest")
    assert isinstance(anyio.run(approver.review, request_for("make build")), Allow)


def test_a_session_approval_holds_only_in_its_session() -> None:
    approver = in_memory()
    approver.remember(request_for("make build", session_id="s1"), "session")
    assert decision(anyio.run(approver.review, request_for("make build", session_id="s1"))) == (
        "allow"
    )
    assert decision(anyio.run(approver.review, request_for("make build", session_id="s2"))) == (
        "ask"
    )
    with pytest.raises(ValueError, match="no session"):
        approver.propose(request_for("make build"), "session")


def test_a_prefix_approval_is_never_broader_than_asked() -> None:
    approver = in_memory()
    approver.remember(request_for("mytool build --fast"), "prefix")
    assert decision(anyio.run(approver.review, request_for("mytool build --slow"))) == "allow"
    assert decision(anyio.run(approver.review, request_for("mytool deploy"))) == "ask"
    assert decision(anyio.run(approver.review, request_for("mytool build; rm -rf ~"))) == (
        "decline"
    )
    assert decision(anyio.run(approver.review, request_for("mytool build > out.txt"))) == "ask"


@pytest.mark.parametrize(
    ("command", "prefix", "rule", "again"),
    [
        ("pip install requests", ["install"], "ask.writes", "pip install flask"),
        ("git push origin main", ["push"], "ask.writes", "git push origin topic"),
        ("sed -i s/a/b/ notes.txt", ["-i"], "ask.writes", "sed -i s/x/y/ src/app.py"),
    ],
)
def test_a_prefix_approval_takes_the_place_of_an_ask_that_yields_to_it(
    command: str, prefix: list[str], rule: str, again: str
) -> None:
    """ "Always allow `pip install`": the ask rule that asked yields to what the person remembered."""
    approver = in_memory()
    request = request_for(command, session_id="s1")
    offered = {offer.prefix: offer for offer in approver.offers(request) if offer.scope == "prefix"}
    assert tuple(prefix) in offered
    assert any(f"in the place of rule {rule}" in clause for clause in offered[tuple(prefix)].covers)
    approver.remember(request, "prefix", prefix=prefix)
    answer = anyio.run(approver.review, request_for(again))
    assert isinstance(answer, Allow)
    assert answer.rule == f"remembered.{approver.remembered[0].id}"
    assert answer.reason is not None
    assert f"in the place of rule {rule}, which asks a person" in answer.reason


def test_every_prefix_offered_takes_effect() -> None:
    """What is offered is what happens: the same command is allowed once the offer is taken."""
    for command in ("mytool build --fast", "mytool", "./run.sh check", "pip install x", "git push"):
        request = request_for(command)
        for offer in in_memory().offers(request):
            if offer.scope == "prefix":
                approver = in_memory()
                approver.remember(request, "prefix", prefix=offer.prefix)
                assert decision(anyio.run(approver.review, request_for(command))) == "allow"


def test_a_remembered_prefix_never_outranks_a_decline(tmp_path: Path) -> None:
    """A prefix saved by hand, or under an older policy, outranks an ask that yields, never a decline."""
    path = tmp_path / "memory.json"
    saved = {"scope": "prefix", "description": "git push", "program": "git", "prefix": ["push"]}
    path.write_bytes(msgspec.json.encode([saved]))
    approver = RulesApprover({"memory": str(path)})
    assert decision(anyio.run(approver.review, request_for("git push origin main"))) == "allow"
    assert decision(anyio.run(approver.review, request_for("git push --force"))) == "decline"


def test_a_digest_approval_does_not_override_a_decline() -> None:
    approver = in_memory()
    request = request_for("rm -rf ~")
    approver.remember(request, "digest")
    assert decision(anyio.run(approver.review, request)) == "decline"


def test_propose_refuses_what_it_cannot_scope() -> None:
    approver = in_memory()
    with pytest.raises(ValueError, match="Unknown scope"):
        approver.propose(request_for("ls"), "forever")
    with pytest.raises(ValueError, match="one command"):
        approver.propose(request_for("ls; cat x"), "prefix")
    with pytest.raises(ValueError, match="one command"):
        approver.propose(request_for("mytool build"), "prefix", ["deploy"])


def test_remembered_approvals_persist_readable_by_the_owner_only(tmp_path: Path) -> None:
    path = tmp_path / "state" / "memory.json"
    first_approver = RulesApprover({"memory": str(path)})
    first_approver.remember(request_for("mytool build"), "prefix", note="weekly")
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    second = RulesApprover({"memory": str(path)})
    assert [(item.scope, item.program, item.prefix, item.note) for item in second.remembered] == [
        ("prefix", "mytool", ("build",), "weekly")
    ]
    assert decision(anyio.run(second.review, request_for("mytool build x"))) == "allow"
    assert not list(path.parent.glob(".remembered-*"))


def test_a_corrupt_memory_file_stops_the_load(tmp_path: Path) -> None:
    path = tmp_path / "memory.json"
    path.write_text("{not json")
    with pytest.raises(ValueError, match="Cannot read the remembered approvals"):
        RulesApprover({"memory": str(path)})
