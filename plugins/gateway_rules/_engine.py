"""
The rules engine: judge every command of a call, and let the strictest decision win.

For each command — statement commands, substitutions, heredoc ``$( )``,
function bodies, nested shell text, ``find -exec`` and ``xargs`` targets —
the decision is, in order of precedence:

1. a matching ``decline`` rule, or a built-in decline (the program comes from
   an expansion; shell text that is not a literal);
2. a matching ``ask`` rule, or a built-in ask (an option no launcher row
   declares, operands fed from a stream, a launcher that is not transparent,
   a file write no allow rule permits, nested text that could not be read);
3. a matching ``allow`` rule, or a remembered approval;
4. otherwise ``ask``: no rule covers it.

The call is allowed only when every command is; any decline declines it;
anything else asks (the approver abstains to the next one). Whole-call checks
come first: an unmeasured plan is never allowed, display-spoofing characters
are at least an ask, and variables that change which program runs (``PATH``)
are declined.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from typing import Final, NamedTuple

from gateway import (
    Abstain,
    Allow,
    Answer,
    Decline,
    Plan,
    PlannedCommand,
    ReviewRequest,
    iter_commands,
)
from gateway_rules._match import (
    TRANSPARENT_LAUNCHERS,
    CommandView,
    command_text,
    matches,
    redirect_writes,
)
from gateway_rules._schema import Rule

__all__ = ["Judgement", "RuleSet", "display_hazards"]

_RANK: Final = {"allow": 0, "ask": 1, "decline": 2}
_SPOOFING: Final = re.compile(
    "[\r\x1b\x00-\x08\x0b\x0c\x0e-\x1f\x7f\x80-\x9f\u00ad\u061c\u180e\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]"
)
_PADDING: Final = re.compile(r"[ \t]{48,}")
_DANGEROUS_BINDINGS: Final = frozenset(
    {
        "PATH",
        "LD_PRELOAD",
        "LD_LIBRARY_PATH",
        "LD_AUDIT",
        "BASH_ENV",
        "ENV",
        "IFS",
        "PROMPT_COMMAND",
        "PS4",
        "SHELLOPTS",
        "BASHOPTS",
        "GLOBIGNORE",
        "CDPATH",
    }
)


class Judgement(NamedTuple):
    """One decision with its reason and the rule behind it."""

    decision: str
    reason: str
    rule: str | None
    command: str | None = None


def display_hazards(text: str) -> str | None:
    """What in ``text`` can make a person see something other than what runs, as a clause."""
    found = _SPOOFING.search(text)
    if found is not None:
        char = found.group()
        name = {"\r": "a carriage return", "\x1b": "an ANSI escape"}.get(char)
        if name is None:
            label = unicodedata.name(char, "") or f"U+{ord(char):04X}"
            name = (
                f"the invisible or control character U+{ord(char):04X} ({label.lower()})"
                if label
                else f"U+{ord(char):04X}"
            )
        return f"it contains {name}, which can hide or reorder what a person sees"
    if _PADDING.search(text):
        return "it contains a long run of blanks, which can push text out of sight"
    return None


def _sentence(
    decision: str, command: str, rule: Rule | None, clause: str, instead: str | None = None
) -> str:
    verb = {"decline": "Declined", "ask": "Asked about", "allow": "Allowed"}[decision]
    where = f"rule {rule.id} " if rule is not None else ""
    tail = f"; {instead}" if instead else ""
    return f"{verb} `{command}`: {where}{clause}{tail}."


class RuleSet:
    """A loaded, validated set of rules, with remembered approvals."""

    def __init__(self, rules: Sequence[Rule]) -> None:
        self.rules = tuple(rules)
        self.tool_rules = tuple(rule for rule in self.rules if rule.tools)
        self.command_rules = tuple(rule for rule in self.rules if not rule.tools)

    # ── one command ──

    def judge_command(
        self,
        command: PlannedCommand,
        *,
        cwd: str | None,
        functions: frozenset[str],
        remembered: Iterable[Rule] = (),
    ) -> Judgement:
        """Decide one command by the precedence in the module docstring."""
        view = CommandView(command)
        text = command_text(command)
        matched = [rule for rule in self.command_rules if matches(rule, view, cwd)]
        for rule in matched:
            if rule.decision == "decline":
                return Judgement(
                    "decline",
                    _sentence("decline", text, rule, rule.reason, rule.instead),
                    rule.id,
                    text,
                )
        position = command.position
        if position.dynamic_program:
            return Judgement(
                "decline",
                _sentence(
                    "decline",
                    text,
                    None,
                    "the program comes from an expansion and is only known when it runs",
                    "name the program literally",
                ),
                None,
                text,
            )
        for nested in command.nested:
            if nested.status == "dynamic" and nested.origin == "expansion":
                return Judgement(
                    "decline",
                    _sentence(
                        "decline",
                        text,
                        None,
                        f"the text `{nested.via}` runs is built at run time, so no one can see it first",
                    ),
                    None,
                    text,
                )
            if nested.status == "dynamic" and nested.origin == "stdin" and command.fed_by:
                return Judgement(
                    "decline",
                    _sentence(
                        "decline",
                        text,
                        None,
                        f"`{command.fed_by[-1]}` pipes text into a shell, which runs it unseen",
                        "save it to a file, read it, then run it",
                    ),
                    None,
                    text,
                )
        for rule in matched:
            if rule.decision == "ask":
                return Judgement(
                    "ask", _sentence("ask", text, rule, rule.reason, rule.instead), rule.id, text
                )
        if command.name and command.name in functions:
            return Judgement(
                "ask",
                _sentence(
                    "ask", text, None, f"`{command.name}` calls a shell function this call defines"
                ),
                None,
                text,
            )
        if position.refusal is not None and not position.refusal.runs_shell:
            return Judgement(
                "ask", _sentence("ask", text, None, _clause(position.reason)), None, text
            )
        if position.decline == "stream_fed_operands":
            return Judgement(
                "ask", _sentence("ask", text, None, _clause(position.reason)), None, text
            )
        opaque = [step for step in view.launchers if step not in TRANSPARENT_LAUNCHERS]
        allows = [rule for rule in matched if rule.decision == "allow"]
        allows += [rule for rule in remembered if matches(rule, view, cwd)]
        if opaque and not any(rule.launchers for rule in allows):
            return Judgement(
                "ask",
                _sentence(
                    "ask", text, None, f"it runs through `{opaque[0]}`, which no rule allows"
                ),
                None,
                text,
            )
        for nested in command.nested:
            if nested.status != "measured":
                return Judgement(
                    "ask",
                    _sentence(
                        "ask",
                        text,
                        None,
                        f"what `{nested.via}` runs could not be read ({_clause(nested.reason)})",
                    ),
                    None,
                    text,
                )
        writes = [r for r in command.redirects if redirect_writes(r)]
        if writes and not any(rule.writes for rule in allows):
            target = writes[0].target.display if writes[0].target is not None else "?"
            return Judgement(
                "ask", _sentence("ask", text, None, f"it writes to `{target}`"), None, text
            )
        if position.runs_shell and position.program is None and not command.nested:
            return Judgement(
                "ask",
                _sentence(
                    "ask", text, None, "it starts a shell whose commands the plan cannot see"
                ),
                None,
                text,
            )
        if allows:
            rule = allows[0]
            return Judgement("allow", _sentence("allow", text, rule, rule.reason), rule.id, text)
        if not command.name:
            return Judgement(
                "allow",
                _sentence("allow", text or "(redirect)", None, "it runs no program"),
                None,
                text,
            )
        program = position.program.basename if position.program is not None else command.name
        return Judgement(
            "ask", _sentence("ask", text, None, f"no rule covers `{program}`"), None, text
        )

    # ── a whole plan ──

    def judge_plans(
        self,
        plans: Sequence[Plan],
        *,
        cwd: str | None,
        remembered: Iterable[Rule] = (),
    ) -> list[Judgement]:
        """Judge every command of some plans (nested text included)."""
        remembered = tuple(remembered)
        functions = frozenset(name for plan in plans for name in plan.functions)
        judgements = [
            self.judge_command(command, cwd=cwd, functions=functions, remembered=remembered)
            for plan in plans
            for command in iter_commands(plan)
        ]
        bound = {name for plan in plans for name in plan.bound_variables}
        dangerous = sorted(bound & _DANGEROUS_BINDINGS)
        if dangerous:
            judgements.append(
                Judgement(
                    "decline",
                    f"Declined the call: it sets `{dangerous[0]}`, which changes which program runs or what the shell does; set it in the agent's environment instead.",
                    None,
                )
            )
        arithmetic = sorted({name for plan in plans for name in plan.arithmetic_variables} - bound)
        if arithmetic:
            judgements.append(
                Judgement(
                    "ask",
                    f"Asked about the call: arithmetic reads `{arithmetic[0]}` from outside the call, and bash evaluates its value as an expression that can run commands.",
                    None,
                )
            )
        return judgements

    def judge_tool(self, tool: str) -> Judgement:
        """Decide a call of a tool that is not a shell, by the tool rules (strictest match wins)."""
        matched = [rule for rule in self.tool_rules if tool in rule.tools]
        if not matched:
            return Judgement("ask", f"Asked about the tool `{tool}`: no rule covers it.", None)
        rule = max(matched, key=lambda r: _RANK[r.decision])
        verb = {"decline": "Declined", "ask": "Asked about", "allow": "Allowed"}[rule.decision]
        tail = f"; {rule.instead}" if rule.instead else ""
        return Judgement(
            rule.decision, f"{verb} the tool `{tool}`: rule {rule.id} {rule.reason}{tail}.", rule.id
        )

    def evaluate(
        self,
        request: ReviewRequest,
        remembered: Iterable[Rule] = (),
        *,
        digest_allowed: bool = False,
    ) -> Answer:
        """Answer one review request."""
        plans: list[Plan] = []
        if request.kind == "hole":
            if request.hole is None:
                return Abstain(reason="The hole question carries no hole.")
            plans = list(request.hole.plans)
        elif request.kind == "body":
            if request.body_plan is None:
                return Abstain(
                    reason="The completed heredoc body is not shell text, so the rules cannot judge it; a person must."
                )
            if request.body_plan.status != "measured":
                return Abstain(
                    reason=f"The completed heredoc body could not be read with confidence ({_clause(request.body_plan.reason)})."
                )
            plans = [s.plan for s in request.body_plan.statements]
        elif request.plan is None:
            judgement = self.judge_tool(request.call.tool)
            return _answer([judgement])
        else:
            plan = request.plan
            hazard = display_hazards(plan.source)
            if plan.status != "measured":
                reason = f"The command could not be read with confidence ({_clause(plan.reason)}), so the rules do not allow it"
                if hazard:
                    reason += f", and {hazard}"
                return Abstain(reason=reason + ".")
            plans = [s.plan for s in plan.statements]
            if not plans:
                return Allow(reason="The command is empty: it runs nothing.", rule=None)
            judgements = self.judge_plans(plans, cwd=request.call.cwd, remembered=remembered)
            if hazard:
                judgements.append(Judgement("ask", f"Asked about the call: {hazard}.", None))
            if digest_allowed and not any(j.decision == "decline" for j in judgements):
                return Allow(
                    reason="A person approved this exact command before (remembered for its plan digest).",
                    rule="remembered.digest",
                )
            return _answer(judgements)
        return _answer(self.judge_plans(plans, cwd=request.call.cwd, remembered=remembered))


def _clause(sentence: str | None) -> str:
    if not sentence:
        return "no reason given"
    sentence = sentence.strip().rstrip(".")
    return sentence[:1].lower() + sentence[1:]


def _answer(judgements: list[Judgement]) -> Answer:
    """The strictest judgement as an answer (decline, else ask → abstain, else allow)."""
    if not judgements:
        return Allow(reason="Nothing in the call runs a program.", rule=None)
    worst = max(judgements, key=lambda j: _RANK[j.decision])
    if worst.decision == "decline":
        return Decline(reason=worst.reason, rule=worst.rule)
    if worst.decision == "ask":
        return Abstain(reason=worst.reason, rule=worst.rule)
    rules = sorted({j.rule for j in judgements if j.rule})
    if len(judgements) == 1:
        return Allow(reason=worst.reason, rule=worst.rule)
    named = ", ".join(rules[:4]) + ("…" if len(rules) > 4 else "")
    return Allow(
        reason=f"Allowed: every one of the {len(judgements)} commands is allowed ({named or 'no program runs'}).",
        rule=rules[0] if len(rules) == 1 else None,
    )
