"""
The rules engine: judge every command of a call, and let the strictest decision win.

For each command — statement commands, substitutions, heredoc ``$( )``,
function bodies, nested shell text, ``find -exec`` and ``xargs`` targets —
the decision is, in order of precedence:

1. a matching ``decline`` rule, or a built-in decline (the program comes from
   an expansion; shell text that is not a literal);
2. a matching ``ask`` rule, or a built-in ask (an option no launcher row
   declares, operands fed from a stream, a variable it sets that the rules do
   not know or cannot name, a value it evaluates as a number that the plan
   cannot see or that runs code, ``time -o``, a launcher that is not transparent, a file write
   no allow rule permits, nested text that could not be read);
3. a matching ``allow`` rule, or a remembered approval;
4. otherwise ``ask``: no rule covers it.

The call is allowed only when every command is; any decline declines it;
anything else asks (the approver abstains to the next one). Whole-call checks
come too: an unmeasured plan is never allowed; display-spoofing characters
are at least an ask; variables that change which program runs (``PATH``) are
declined, and rules about variables alone judge plain assignments; unknown
upper-case variables are asked about, and so is every place the plan says bash
evaluates text as a number when the text runs code (a subscript with an
expansion, written or bound) or its origin is unknown (the planner's number
sites, ``Execute`` effects of kind ``number`` and ``expansion``).
"""

from __future__ import annotations

import fnmatch
import re
import unicodedata
from collections.abc import Iterable, Iterator, Sequence
from typing import Final, NamedTuple

from gateway import (
    DECISION_VERBS,
    LAUNCHERS,
    Abstain,
    Allow,
    Answer,
    Decline,
    Plan,
    PlannedCommand,
    ReviewRequest,
    iter_commands,
    strictness,
)
from gateway.effects import Effect, Execute
from gateway_rules._match import (
    CommandView,
    command_text,
    matches,
    option_present,
    redirect_writes,
)
from gateway_rules._schema import Rule, RuleDecision

__all__ = ["Judgement", "RuleSet", "display_hazards", "unknown_variable"]

_ASCII_CONTROL: Final = re.compile("[\x00-\x08\x0b-\x1f\x7f]")
_NOT_ASCII: Final = re.compile("[^\x00-\x7f]")
_INVISIBLE_LETTERS: Final = frozenset(
    "\u115f\u1160\u3164\uffa0\u2800\u034f\u17b4\u17b5\u180b\u180c\u180d\u180e\u180f"
)
"""Characters that are letters or marks to Unicode but show as nothing."""
_HAZARD_CATEGORIES: Final = frozenset({"Cc", "Cf", "Zl", "Zp", "Zs", "Co", "Cs"})
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


_HARMLESS_VARIABLES: Final = frozenset(
    {
        "LANG",
        "LANGUAGE",
        "TZ",
        "COLUMNS",
        "LINES",
        "TERM",
        "COLORTERM",
        "NO_COLOR",
        "FORCE_COLOR",
        "CLICOLOR",
        "CLICOLOR_FORCE",
        "CI",
        "PYTHONUNBUFFERED",
        "PYTHONDONTWRITEBYTECODE",
        "PYTHONIOENCODING",
        "PYTHONHASHSEED",
        "PYTHONUTF8",
        "PYTHONFAULTHANDLER",
        "OMP_NUM_THREADS",
        "MKL_NUM_THREADS",
        "OPENBLAS_NUM_THREADS",
        "NUMEXPR_NUM_THREADS",
        "REPLY",
        "MAPFILE",
        "OPTIND",
        "OPTARG",
        "OPTERR",
        "TIMEFORMAT",
        "GIT_AUTHOR_NAME",
        "GIT_AUTHOR_EMAIL",
        "GIT_AUTHOR_DATE",
        "GIT_COMMITTER_NAME",
        "GIT_COMMITTER_EMAIL",
        "GIT_COMMITTER_DATE",
        "GIT_TERMINAL_PROMPT",
    }
)
"""Upper-case variables known not to change what an allowed program runs, reads or writes."""
_TIME_WRITES: Final = ("-o", "--output", "-a", "--append")


def unknown_variable(name: str) -> bool:
    """
    True when setting ``name`` may change what a program does and the rules do not know it harmless.

    Programs read their settings from upper-case environment variables
    (``GIT_DIR``, ``GIT_EXTERNAL_DIFF``, ``LESSOPEN``, ``HOME``…), and an
    assignment reaches them when the variable is exported, or already was:
    only a short list of upper-case names is known to be harmless; lower-case
    names are the script's own.
    """
    if any(char.islower() for char in name):
        return False
    return name not in _HARMLESS_VARIABLES and not name.startswith("LC_")


class Judgement(NamedTuple):
    """One decision with its reason and the rule behind it."""

    decision: RuleDecision
    reason: str
    rule: str | None
    command: str | None = None


def _hazard_character(text: str) -> str | None:
    """The first character of ``text`` that shows as something other than itself, or nothing."""
    found = _ASCII_CONTROL.search(text)
    first = found.start() if found is not None else len(text)
    for other in _NOT_ASCII.finditer(text, 0, first):
        char = other.group()
        code = ord(char)
        if (
            unicodedata.category(char) in _HAZARD_CATEGORIES
            or char in _INVISIBLE_LETTERS
            or 0xFE00 <= code <= 0xFE0D  # variation selectors (not the emoji ones)
            or 0xE0100 <= code <= 0xE01EF
        ):
            return char
    return found.group() if found is not None else None


def display_hazards(text: str) -> str | None:
    """
    What in ``text`` can make a person see something other than what runs, as a clause.

    Control characters (a carriage return, an ANSI escape…) other than tab and
    newline; Unicode format characters (bidirectional overrides, zero-width
    characters, tag characters, the soft hyphen…), separators other than the
    plain space, and characters that show as nothing; a long run of blanks.
    """
    char = _hazard_character(text)
    if char is not None:
        name = {"\r": "a carriage return", "\x1b": "an ANSI escape"}.get(char)
        if name is None:
            label = unicodedata.name(char, "")
            name = f"the invisible or control character U+{ord(char):04X}" + (
                f" ({label.lower()})" if label else ""
            )
        return f"it contains {name}, which can hide or reorder what a person sees"
    if _PADDING.search(text):
        return "it contains a long run of blanks, which can push text out of sight"
    return None


def _sentence(
    decision: RuleDecision, command: str, rule: Rule | None, clause: str, instead: str | None = None
) -> str:
    verb = DECISION_VERBS[decision]
    where = f"rule {rule.id} " if rule is not None else ""
    tail = f"; {instead}" if instead else ""
    return f"{verb} `{command}`: {where}{clause}{tail}."


def _judged(
    decision: RuleDecision, command: str, clause: str, instead: str | None = None
) -> Judgement:
    """A judgement of ``command`` that no rule gave, with its sentence (see `_sentence`)."""
    return Judgement(decision, _sentence(decision, command, None, clause, instead), None, command)


def _by_rule(rule: Rule, command: str) -> Judgement:
    """The judgement ``rule`` gives ``command``: its decision, reason and what to do instead."""
    return Judgement(
        rule.decision,
        _sentence(rule.decision, command, rule, rule.reason, rule.instead),
        rule.id,
        command,
    )


class RuleSet:
    """A loaded, validated set of rules, with remembered approvals."""

    def __init__(self, rules: Sequence[Rule]) -> None:
        self.rules = tuple(rules)
        self.tool_rules = tuple(rule for rule in self.rules if rule.tools)
        self.command_rules = tuple(rule for rule in self.rules if not rule.tools)
        self.variable_rules = tuple(
            rule
            for rule in self.command_rules
            if rule.assigns and rule.decision != "allow" and _only_assigns(rule)
        )

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
                return _by_rule(rule, text)
        position = command.position
        if position.dynamic_program:
            return _judged(
                "decline",
                text,
                "the program comes from an expansion and is only known when it runs",
                "name the program literally",
            )
        for nested in command.nested:
            if nested.status == "dynamic" and nested.origin == "expansion":
                return _judged(
                    "decline",
                    text,
                    f"the text `{nested.via}` runs is built at run time, so no one can see it first",
                )
            if nested.status == "dynamic" and nested.origin == "stdin" and command.fed_by:
                return _judged(
                    "decline",
                    text,
                    f"`{command.fed_by[-1]}` pipes text into a shell, which runs it unseen",
                    "save it to a file, read it, then run it",
                )
        for rule in matched:
            if rule.decision == "ask":
                return _by_rule(rule, text)
        if command.name and command.name in functions:
            return _judged(
                "ask", text, f"`{command.name}` calls a shell function this call defines"
            )
        if position.refusal is not None and not position.refusal.runs_shell:
            return _judged("ask", text, _clause(position.reason))
        if position.decline == "stream_fed_operands":
            return _judged("ask", text, _clause(position.reason))
        if view.hidden_assignment is not None:
            return _judged(
                "ask",
                text,
                f"it sets a variable whose name the plan cannot see ({view.hidden_assignment})",
                "name the variable literally",
            )
        unknown = [name for name in view.assigned if unknown_variable(name)]
        if unknown:
            return _judged(
                "ask",
                text,
                f"it sets `{unknown[0]}`, which programs may read from their environment and no rule knows to be harmless",
            )
        evaluated = _evaluation(command.effects)
        if evaluated is not None:
            return _judged("ask", text, evaluated)
        for launcher, own in view.launcher_args:
            if launcher == "time" and option_present(own, _TIME_WRITES) is not None:
                return _judged("ask", text, "`time -o` writes its report to a file")
        # A launcher that runs the named program unchanged (its row says so) is
        # decided by the rule about the program.
        opaque = [step for step in view.launchers if not LAUNCHERS[step].transparent]
        allows = [rule for rule in matched if rule.decision == "allow"]
        allows += [rule for rule in remembered if matches(rule, view, cwd)]
        if opaque and not any(rule.launchers for rule in allows):
            return _judged("ask", text, f"it runs through `{opaque[0]}`, which no rule allows")
        for nested in command.nested:
            if nested.status != "measured":
                return _judged(
                    "ask",
                    text,
                    f"what `{nested.via}` runs could not be read ({_clause(nested.reason)})",
                )
        writes = [r for r in command.redirects if redirect_writes(r)]
        if writes and not any(rule.writes for rule in allows):
            target = writes[0].target.display if writes[0].target is not None else "?"
            return _judged("ask", text, f"it writes to `{target}`")
        if position.runs_shell and position.program is None and not command.nested:
            return _judged("ask", text, "it starts a shell whose commands the plan cannot see")
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
        return _judged("ask", text, f"no rule covers `{program}`")

    # ── a whole plan ──

    def judge_plans(
        self,
        plans: Sequence[Plan],
        *,
        cwd: str | None,
        remembered: Iterable[Rule] = (),
    ) -> list[Judgement]:
        """Judge every command of some plans (nested text included), then the call as a whole."""
        remembered = tuple(remembered)
        every = list(_with_nested(plans))
        functions = frozenset(name for plan in every for name in plan.functions)
        judgements = [
            self.judge_command(command, cwd=cwd, functions=functions, remembered=remembered)
            for plan in plans
            for command in iter_commands(plan)
        ]
        bound = {name for plan in every for name in plan.bound_variables}
        # A plain assignment (``HISTFILE=/dev/null``, ``for PATH in …``) runs no
        # command, so rules about variables alone are also held against them.
        for rule in self.variable_rules:
            hit = sorted(
                name
                for name in bound
                if any(fnmatch.fnmatchcase(name, pattern) for pattern in rule.assigns)
            )
            if hit:
                verb = DECISION_VERBS[rule.decision]
                tail = f"; {rule.instead}" if rule.instead else ""
                judgements.append(
                    Judgement(
                        rule.decision,
                        f"{verb} the call: rule {rule.id} {rule.reason} (it sets `{hit[0]}`){tail}.",
                        rule.id,
                    )
                )
        dangerous = sorted(bound & _DANGEROUS_BINDINGS)
        if dangerous:
            judgements.append(
                Judgement(
                    "decline",
                    f"Declined the call: it sets `{dangerous[0]}`, which changes which program runs or what the shell does; set it in the agent's environment instead.",
                    None,
                )
            )
        unknown = sorted(name for name in bound if unknown_variable(name))
        if unknown:
            judgements.append(
                Judgement(
                    "ask",
                    f"Asked about the call: it sets `{unknown[0]}`, which programs may read from their environment and no rule knows to be harmless.",
                    None,
                )
            )
        for plan in every:
            # What the statement's own syntax evaluates: `(( ))`, `[[ ]]`, a
            # subscript in a bare assignment, a `for (( ))` loop.
            evaluated = _evaluation(plan.effects)
            if evaluated is not None:
                judgements.append(Judgement("ask", f"Asked about the call: {evaluated}.", None))
                break
        return judgements

    def judge_tool(self, tool: str) -> Judgement:
        """Decide a call of a tool that is not a shell, by the tool rules (strictest match wins)."""
        matched = [rule for rule in self.tool_rules if tool in rule.tools]
        if not matched:
            return Judgement("ask", f"Asked about the tool `{tool}`: no rule covers it.", None)
        rule = max(matched, key=lambda r: strictness(r.decision))
        verb = DECISION_VERBS[rule.decision]
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


_METADATA: Final = frozenset(
    {"id", "decision", "reason", "instead", "assigns", "match", "not_match"}
)


def _only_assigns(rule: Rule) -> bool:
    """True when ``assigns`` is the rule's only condition (it can then judge a plain assignment)."""
    defaults = Rule(id=rule.id, decision=rule.decision, reason=rule.reason)
    return all(
        getattr(rule, field) == getattr(defaults, field)
        for field in rule.__struct_fields__
        if field not in _METADATA
    )


def _with_nested(plans: Iterable[Plan]) -> Iterator[Plan]:
    """The plans and, recursively, the plans of the shell text their commands launch."""
    for plan in plans:
        yield plan
        for command in plan.commands:
            for nested in command.nested:
                yield from _with_nested(nested.plans)


def _evaluation(effects: Iterable[Effect]) -> str | None:
    """
    Why a command (or a statement) may run code hidden in a value bash evaluates, as a clause.

    From the planner's number sites: text that runs code when bash evaluates
    it (a subscript with an expansion, written or bound), or a value bash
    evaluates as a number whose origin the plan cannot see.
    """
    for effect in effects:
        if isinstance(effect, Execute) and effect.kind == "expansion":
            shown = _shown(effect.text) if effect.text is not None else "a value"
            return f"bash runs the expansion in `{shown}` when it evaluates it ({effect.via})"
    for effect in effects:
        if isinstance(effect, Execute) and effect.kind == "number" and effect.origin == "unknown":
            shown = _shown(effect.text) if effect.text is not None else "a value"
            return f"it evaluates `{shown}` as a number ({effect.via}), and bash evaluates a value it cannot see as an expression that can run commands"
    return None


def _shown(text: str, limit: int = 60) -> str:
    """Text for a reason sentence: one line, no backquotes, shortened."""
    text = " ".join(text.split()).replace("`", "'")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _clause(sentence: str | None) -> str:
    if not sentence:
        return "no reason given"
    sentence = sentence.strip().rstrip(".")
    return sentence[:1].lower() + sentence[1:]


def _answer(judgements: list[Judgement]) -> Answer:
    """The strictest judgement as an answer (decline, else ask → abstain, else allow)."""
    if not judgements:
        return Allow(reason="Nothing in the call runs a program.", rule=None)
    worst = max(judgements, key=lambda j: strictness(j.decision))
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
