"""
The rules approver: decisions from TOML rules about the program that really runs.

Registered in the ``gateway.approvers`` entry-point group as ``rules`` and
loaded like any third-party approver. It judges every command of a call —
nested shell text, substitutions, heredoc holes, ``find -exec`` and ``xargs``
targets, every pipeline stage and list member — and the strictest decision
wins: it declines, abstains (an ``ask`` for the next approver, usually a
person) or allows. It never allows a plan that could not be measured.

Rules are validated when the gateway starts: an invalid rule, or a rule whose
``match``/``not-match`` examples fail, stops the start with one sentence
naming the file, the rule and the problem.

Options (``[approver.rules]`` in the gateway config)::

    [approver.rules]
    profile = "read-only"           # or "workspace-write": writes inside the workspace allowed
    include-default = true          # the default policy shipped with the gateway
    files = ["team-rules.toml"]     # more rule files ([[rule]] tables)
    memory = "remembered.json"      # approvals a person asked to remember

    [[approver.rules.rule]]
    id = "make.test"
    decision = "allow"
    programs = ["make"]
    prefix = ["test"]
    executes = ["code"]             # make runs the makefile's recipes: allow that here
    reason = "runs the project's tests"
    match = ["make test"]
    not-match = ["make install"]

Judging is pure computation over the plan's effects; the only thing read
from outside is the configuration of the git repository a git command would
use (`gateway.git.inspect_repository`), read in a worker thread before judging.
A large call is judged in one of the gateway's worker processes, under the
approver's deadline (`gateway_rules._judging`).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

import msgspec

from gateway import Abstain, Allow, Answer, ApproverContext, GatewayError, ReviewRequest
from gateway.bounded import cpu_left
from gateway.config import ProfileSection, default_config_bytes, default_profiles, validation_path
from gateway.confinement import Places, resolve_confinement
from gateway.effects import PLAN_FORMAT, PathsSection, UserTable
from gateway.plans import ProgramPlan, iter_commands
from gateway.text import shorten
from gateway_rules._checked import examples_key, known_good, remember_good
from gateway_rules._context import (
    disk_targets,
    git_directories,
    look_at_disk,
    outside_home,
    point_writes,
    repository_check,
    unreadable_reads,
    workspace_roots,
)
from gateway_rules._engine import (
    REMEMBERED_PREFIX,
    JudgeContext,
    Judgement,
    RuleSet,
)
from gateway_rules._examples import (
    ExampleResult,
    TableExampleResult,
    check_examples,
    check_table_examples,
)
from gateway_rules._judging import SPENT, Judge, JudgeQuestion, JudgingStatistics
from gateway_rules._match import CommandView
from gateway_rules._memory import (
    MemoryFile,
    MemoryFileError,
    RememberedApproval,
    approval_digest,
    memory_path,
)
from gateway_rules._schema import (
    PROFILES,
    REMEMBER_WIDTHS,
    Remembered,
    Rule,
    RulesOptions,
    validate_rule,
)
from gateway_rules._shown import command_shown

__all__ = [
    "PROFILES",
    "REMEMBER_WIDTHS",
    "ExampleResult",
    "JudgingStatistics",
    "MemoryFile",
    "MemoryFileError",
    "Remembered",
    "RememberedApproval",
    "Rule",
    "RuleError",
    "RuleSet",
    "RulesApprover",
    "RulesOptions",
    "TableExampleResult",
    "approval_digest",
    "check_examples",
    "check_table_examples",
    "convert_rules",
    "load_rules",
    "memory_path",
    "pick",
    "rules_digest",
]

PREFIX_WORDS: Final = 3
"""At most this many leading arguments make the narrowest prefix offered (wider ones are offered too)."""
_DEFAULT_SOURCE: Final = "the default policy"
_WORKER_GRACE: Final = 1.0
_READABLE: Final = frozenset({"readable", "writable", "protected"})
"""Places a profile declares readable (`gateway.confinement.Place`); scratch space counts outside the home directory."""
"""Seconds past the approver's deadline a worker judging a call is given, where no chain cuts it first."""
_MEMO_ENCODER: Final = msgspec.json.Encoder(order="sorted")
_CHECKED_KEPT: Final = 8
"""Rule sets this process keeps loaded and checked, by everything they were built from (the latest built)."""
_CHECKED: dict[bytes, tuple[tuple[tuple[str, Rule], ...], RuleSet]] = {}


class RuleError(GatewayError, ValueError):
    """A rule file or rule is invalid; the message names the file, the rule and the problem."""


def _problem(error: Exception) -> str:
    """A decoding error as a clause (``object contains unknown field `x```)."""
    text, path = (
        validation_path(error) if isinstance(error, msgspec.ValidationError) else (str(error), None)
    )
    text = text.strip().rstrip(".")
    if path is not None and path != "$":
        text += f" (at `{path.removeprefix('$').removeprefix('.')}`)"
    return text[:1].lower() + text[1:]


def convert_rules(tables: object, source: str) -> tuple[Rule, ...]:
    """
    Rule tables (as TOML decodes them) as rules, each checked on its own.

    Raises:
        RuleError: One sentence naming the source, the rule (its id, or its
            number when it has none) and the problem.
    """
    if not isinstance(tables, list | tuple):
        raise RuleError(f"Invalid rules in {source}: `rule` must be an array of tables ([[rule]]).")
    rules: list[Rule] = []
    for number, table in enumerate(tables, start=1):
        name = table.get("id") if isinstance(table, dict) else None
        label = repr(name) if isinstance(name, str) else f"number {number}"
        try:
            rules.append(msgspec.convert(table, Rule))
        except msgspec.ValidationError as error:
            raise RuleError(f"Invalid rule {label} in {source}: {_problem(error)}.") from None
    return tuple(rules)


def _decode_rules(data: bytes, source: str) -> tuple[Rule, ...]:
    try:
        raw = msgspec.toml.decode(data)
    except msgspec.DecodeError as error:
        raise RuleError(f"Invalid rule file {source}: {_problem(error)}.") from None
    unknown = sorted(set(raw) - {"rule"}) if isinstance(raw, dict) else []
    if unknown:
        raise RuleError(
            f"Invalid rule file {source}: unknown key `{unknown[0]}` (a rule file holds [[rule]] tables)."
        )
    return convert_rules(raw.get("rule", []) if isinstance(raw, dict) else [], source)


def _default_rules() -> tuple[Rule, ...]:
    raw = msgspec.toml.decode(default_config_bytes())
    section = raw.get("approver", {}).get("rules", {}) if isinstance(raw, dict) else {}
    return convert_rules(section.get("rule", []), _DEFAULT_SOURCE)


def load_rules(
    options: RulesOptions,
    *,
    base: Path | None = None,
    profiles: Mapping[str, ProfileSection] | None = None,
) -> tuple[list[tuple[str, Rule]], RuleSet]:
    """
    Load and validate the rules the options name; later rules replace earlier ones with the same id.

    Args:
        options: The ``[approver.rules]`` table.
        base: Where relative rule-file paths are read from.
        profiles: The profiles the configuration defines (``[profiles.NAME]``;
            default: the built-in ones); the one in force says whether code
            the rules cannot read runs confined (`RuleSet.confine_code`).

    Returns:
        The rules with the source each came from, and the rule set under the
        options' profile.

    Raises:
        RuleError: A file cannot be read, a rule is invalid, an id repeats
            within one source, or the profile is not defined.
    """
    return _rules_from(options, _rule_files(options, base), profiles)


def _rule_files(options: RulesOptions, base: Path | None) -> list[tuple[str, bytes]]:
    """Each rule file the options name, read: its path and its content."""
    files: list[tuple[str, bytes]] = []
    for name in options.files:
        path = Path(name).expanduser()
        if base is not None and not path.is_absolute():
            path = base / path
        try:
            files.append((str(path), path.read_bytes()))
        except OSError as error:
            raise RuleError(f"Cannot read the rule file {str(path)!r}: {error.strerror}.") from None
    return files


def _rules_from(
    options: RulesOptions,
    files: Sequence[tuple[str, bytes]],
    profiles: Mapping[str, ProfileSection] | None,
) -> tuple[list[tuple[str, Rule]], RuleSet]:
    """`load_rules`, the rule files already read."""
    sources: list[tuple[str, tuple[Rule, ...]]] = []
    if options.include_default:
        sources.append((_DEFAULT_SOURCE, _default_rules()))
    sources.extend((path, _decode_rules(data, path)) for path, data in files)
    sources.append(("the gateway config", options.rule))
    by_id: dict[str, tuple[str, Rule]] = {}
    for source, rules in sources:
        seen: set[str] = set()
        for rule in rules:
            problem = validate_rule(rule)
            if problem is not None:
                raise RuleError(f"Invalid rule {rule.id!r} in {source}: {problem}.")
            if rule.id in seen:
                raise RuleError(f"Rule {rule.id!r} appears twice in {source}.")
            seen.add(rule.id)
            by_id[rule.id] = (source, rule)
    ordered = list(by_id.values())
    known = {**default_profiles(), **(profiles or {})}
    defined = tuple(known)
    if options.profile not in defined:
        raise RuleError(
            f"The profile {options.profile!r} is not defined; defined: "
            + ", ".join(repr(p) for p in defined)
            + f" (add [profiles.{options.profile}] to the gateway config to define it)."
        )
    return ordered, RuleSet(
        [rule for _, rule in ordered],
        options.profile,
        confine_code=known[options.profile].code == "confined",
    )


def rules_digest(sources: Iterable[tuple[str, Rule]]) -> str:
    """The digest of a rule set: ``sha256:`` over its rules, canonically encoded, in order."""
    encoded = msgspec.json.encode(
        [msgspec.to_builtins(rule) for _, rule in sources], order="sorted"
    )
    return "sha256:" + hashlib.sha256(encoded).hexdigest()


def _checked_rules(
    options: RulesOptions,
    programs: Mapping[str, UserTable],
    profiles: Mapping[str, ProfileSection],
) -> tuple[list[tuple[str, Rule]], RuleSet]:
    files = _rule_files(options, None)
    # Everything the answer depends on, read now: the options (with their
    # inline rules), the tables, the profiles, each rule file's content and
    # the default policy's. A process that opens gateway after gateway (the
    # warm hook worker) builds this approver for each; the code is this
    # process's, so the same inputs give the same rules.
    memo_key = _MEMO_ENCODER.encode(
        (
            options,
            programs,
            profiles,
            files,
            default_config_bytes() if options.include_default else b"",
        )
    )
    remembered = _CHECKED.get(memo_key)
    if remembered is not None:
        return list(remembered[0]), remembered[1]
    sources, rules = _rules_from(options, files, profiles)
    # Checked once per policy, tables and code (gateway_rules._checked): a
    # hook process builds this approver for every tool call.
    key = examples_key(sources, programs)
    if not known_good(key):
        _check_examples(sources, programs, profiles)
        remember_good(key)
    _CHECKED[memo_key] = (tuple(sources), rules)
    while len(_CHECKED) > _CHECKED_KEPT:
        _CHECKED.pop(next(iter(_CHECKED)), None)
    return sources, rules


def _check_examples(
    sources: list[tuple[str, Rule]],
    programs: Mapping[str, UserTable],
    profiles: Mapping[str, ProfileSection],
) -> None:
    """
    Run every rule's and program table's examples.

    Raises:
        RuleError: One fails (the first, and how many more).
    """
    failed = [result for result in check_examples(sources, programs=programs) if not result.passed]
    if failed:
        first = failed[0]
        # Each example is checked under every profile: count it once.
        examples = {(r.source, r.rule, r.expect, r.example) for r in failed}
        head = (
            f"Rule {first.rule!r} in {first.source} does not behave as it says on its example `{first.example}`"
            if first.expect == "match"
            else f"Rule {first.rule!r} in {first.source} decides its example `{first.example}`"
        )
        detail = f" ({first.detail})" if first.detail else ""
        raise RuleError(
            f"{head} under the {first.profile} profile{detail}"
            + (f", and {len(examples) - 1} more examples fail." if len(examples) > 1 else ".")
        )
    tables = [((name,), table.examples) for name, table in programs.items() if table.examples]
    broken = [
        result
        for result in check_table_examples(
            tables, [rule for _, rule in sources], profiles=profiles, programs=programs
        )
        if not result.passed
    ]
    if broken:
        first_table = broken[0]
        example = first_table.example
        raise RuleError(
            f"The program table {first_table.program!r} in the gateway config says "
            f"{example.decision} for its example `{shorten(example.command, 80)}` under the "
            f"{example.profile} profile, but {(first_table.detail or '').rstrip('.')}"
            + (f", and {len(broken) - 1} more examples fail." if len(broken) > 1 else ".")
        )


class RulesApprover:
    """
    The ``rules`` approver.

    Args:
        options: The ``[approver.rules]`` table.
        context: The gateway's context; the approver registers itself in
            ``context.services["rules"]`` so the approval service can offer
            and save remembered approvals, reads the ``[paths]`` table
            (the workspace roots, the home directory) from its config, and
            judges large calls in its pool of workers (``context.bounded``).

    Attributes:
        policy_version: Which rule set decides now: ``local:`` and the
            digest of the rules, or what `replace_policy` was given (the
            managed version a fleet shares). Every verdict names it.
        profile: The profile in force (``[approver.rules] profile``).
        shares_loop: ``True`` when it judges large calls in the gateway's
            workers (it then awaits them on the gateway's loop, and judges
            only small calls there); without a pool it runs on a loop of its
            own, as a plugin that may block does.

    Raises:
        RuleError: The rules are invalid or their examples fail.
    """

    name = "rules"
    reviews_raw_text = False
    # The answer is a function of the question, the rules and the remembered
    # approvals (see `generation`), so the gateway may reuse it for identical
    # calls — except where judging looked at the disk (where a link leads, a
    # repository's config, its hooks directory): those change under the same
    # text, so such an answer moves `generation` on and is never given again.
    deterministic = True

    def __init__(
        self, options: Mapping[str, Any] | None = None, context: ApproverContext | None = None
    ) -> None:
        self._programs = dict(context.config.programs) if context is not None else {}
        self._profiles = (
            {name: context.config.profile(name) for name in context.config.profile_names}
            if context is not None
            else default_profiles()
        )
        self.options, self.sources, self.rules = self._parse(
            dict(options or {}), "the gateway config", self._programs, self._profiles
        )
        self.policy_version = f"local:{rules_digest(self.sources)}"
        self._paths = context.config.paths if context is not None else PathsSection()
        home = self._paths.home or os.path.expanduser("~")
        self._home = home if home.startswith("/") and home.rstrip("/") else None
        self._changes = 0
        self._memory = MemoryFile(memory_path(self.options.memory))
        self._memory.load()
        self._shared: list[RememberedApproval] = []
        pool = context.bounded if context is not None else None
        self.shares_loop = pool is not None
        # The chain cuts judging at the approver's deadline; the worker's own
        # bound, a little later, holds where no chain does.
        self._judge = Judge(
            pool,
            (context.config.gateway.approver_timeout if context is not None else 0.0)
            + _WORKER_GRACE,
        )
        if context is not None:
            context.services["rules"] = self

    @property
    def remembered(self) -> list[RememberedApproval]:
        """
        The approvals people asked to remember: the memory file's (read again when it changed), then the shared ones.

        Only those of a width the policy allows (``[approver.rules]
        remember``) are applied; `offers` and `propose` offer no others.
        """
        if self._memory.refresh():
            self._changes += 1
        return [*self._memory.approvals, *self._shared]

    @property
    def shared(self) -> list[RememberedApproval]:
        """Approvals remembered elsewhere (a fleet's, from its broker); assign a new list to replace them."""
        return self._shared

    @shared.setter
    def shared(self, approvals: list[RememberedApproval]) -> None:
        self._shared = list(approvals)
        self._changes += 1

    @property
    def memory_file(self) -> Path | None:
        """The file remembered approvals are kept in (``None``: this process only)."""
        return self._memory.path

    @property
    def generation(self) -> int:
        """Changes whenever what the approver knows changes: its rules, its remembered approvals."""
        if self._memory.refresh():
            self._changes += 1
        return self._changes

    @staticmethod
    def _parse(
        given: dict[str, Any],
        source: str,
        programs: Mapping[str, UserTable],
        profiles: Mapping[str, ProfileSection],
    ) -> tuple[RulesOptions, list[tuple[str, Rule]], RuleSet]:
        inline = convert_rules(given.pop("rule", []), source)
        try:
            parsed = msgspec.structs.replace(msgspec.convert(given, RulesOptions), rule=inline)
        except msgspec.ValidationError as error:
            raise RuleError(f"Invalid rules options in {source}: {_problem(error)}.") from None
        sources, rules = _checked_rules(parsed, programs, profiles)
        return parsed, sources, rules

    @property
    def profile(self) -> str:
        """The profile in force."""
        return self.rules.profile

    def replace_policy(self, options: Mapping[str, Any], *, version: str) -> None:
        """
        Decide every later review by the rules ``options`` (an ``[approver.rules]`` table) give.

        The new rules are validated and their examples run first; if any
        fails, nothing changes. Remembered approvals stay as they are.

        Raises:
            RuleError: The rules are invalid or their examples fail.
        """
        self.options, self.sources, self.rules = self._parse(
            dict(options), version, self._programs, self._profiles
        )
        self.policy_version = version
        self._changes += 1

    # ── reviewing ──

    def _plans(self, request: ReviewRequest) -> list[Any]:
        if request.kind == "hole" and request.hole is not None:
            return list(request.hole.plans)
        if request.kind == "body" and request.body_plan is not None:
            return [s.plan for s in request.body_plan.statements]
        if request.plan is not None and request.plan.status == "measured":
            return [s.plan for s in request.plan.statements]
        return []

    async def context_for(self, request: ReviewRequest) -> JudgeContext:
        """
        What judging this request needs from outside its plan.

        The workspace roots, the remembered prefix approvals, and the
        inspection of every repository the plan's git commands would use
        (read in a worker thread).
        """
        question = await self._question(request)
        return JudgeContext(
            cwd=request.call.cwd,
            roots=question.roots,
            remembered=question.remembered,
            repository=repository_check(question.inspections),
            profile=self.rules.profile,
            links=question.links,
            programs=question.programs,
        )

    def _readable(self, cwd: str | None) -> Callable[[str], bool]:
        """
        Whether the profile in force declares an absolute path readable (`gateway.confinement.Places`).

        Readable: a place the profile's boundary reads or writes, and the
        temporary directories and devices its scratch space holds; not the
        home directory it gives a confined run empty. A call that cannot be
        confined (no working directory) reads nothing under the home
        directory.
        """
        home = self._home
        section = self._profiles.get(self.rules.profile)
        box = (
            resolve_confinement(
                self.rules.profile,
                section.confinement,
                cwd=cwd,
                home=home,
                paths=self._paths,
                search_path=os.environ.get("PATH"),
            )
            if section is not None
            else "the profile is not defined"
        )

        not_home = outside_home(home, cwd if cwd and cwd.startswith("/") else None)
        if isinstance(box, str):
            return not_home
        places = Places(box)

        def readable(path: str) -> bool:
            place = places.place(path)
            return place in _READABLE or (place == "scratch" and not_home(path))

        return readable

    async def _question(self, request: ReviewRequest) -> JudgeQuestion:
        """`context_for` as data a worker can be sent, with whether a person approved the digest."""
        absolute, roots = workspace_roots(self._paths, request.call.cwd, self._home)
        plans = self._plans(request)
        directories = git_directories(plans)
        targets = disk_targets(plans, request.effects, self._home, request.call.cwd)
        if directories or targets:
            # What is on disk now decides this answer: an identical call later
            # is judged again (a link re-pointed, a hooks path set meanwhile).
            self._changes += 1
        readable = self._readable(request.call.cwd)
        disk = await look_at_disk(
            plans,
            request.effects,
            targets=targets,
            directories=directories,
            paths=self._paths,
            home=self._home,
            cwd=request.call.cwd,
            roots=absolute,
            search_path=os.environ.get("PATH"),
            environ=os.environ,
            readable=readable,
        )
        if disk.open_to_writes:
            self._changes += 1  # a program may appear there: the answer rests on the disk
        links = {
            **disk.links,
            **unreadable_reads(
                plans, request.effects, readable=readable, home=self._home, cwd=request.call.cwd
            ),
            **point_writes(
                plans,
                request.effects,
                paths=disk.paths,
                points=disk.points,
                home=self._home,
                cwd=request.call.cwd,
            ),
        }
        usable = [item for item in self.remembered if item.scope in self.options.remember]
        remembered = tuple(_as_rule(item) for item in usable if item.scope == "prefix")
        exact = next(
            (
                item
                for item in usable
                if item.digest == request.digest
                and item.plan_format == PLAN_FORMAT
                and (
                    item.scope == "digest"
                    or (
                        item.scope == "session"
                        and item.session_id is not None
                        and item.session_id == request.call.session_id
                    )
                )
            ),
            None,
        )
        digest_allowed = (
            None
            if exact is None
            else (exact.id, f"{_who(exact)} asked{_when(exact)} for it to be remembered")
        )
        return JudgeQuestion(
            request=request,
            roots=roots,
            remembered=remembered,
            inspections=disk.inspections,
            digest_allowed=digest_allowed,
            links=links,
            programs=disk.programs,
        )

    async def review(self, request: ReviewRequest) -> Answer:
        """
        Judge a request by the rules (pure computation, after the repository inspections).

        A small request is judged here; a large one (`gateway_rules._judging`)
        in one of the gateway's workers, which the approver's deadline stops.
        Judging that fails there (the worker ran out of memory or died)
        declines, with one sentence.
        """
        left = cpu_left()
        if left is not None and left <= 0:
            # The review's CPU budget is spent: not even its paths are looked up.
            return Abstain(reason=SPENT)
        return await self._judge.answer(self.rules, await self._question(request))

    def judging_statistics(self) -> JudgingStatistics:
        """How many questions were judged inline and in workers, and the longest inline judging."""
        return self._judge.statistics()

    def judge(self, plan: ProgramPlan, *, cwd: str | None = None) -> list[Judgement]:
        """Every command's judgement, for tools and tests (``gateway rules explain``); git as in a clean repository."""
        if plan.status != "measured":
            return []
        _, roots = workspace_roots(self._paths, cwd, self._home)
        context = JudgeContext(
            cwd=cwd, roots=roots, repository=repository_check(None), profile=self.rules.profile
        )
        return self.rules.judge_plans([s.plan for s in plan.statements], context)

    # ── remembering approvals ──

    def offers(self, request: ReviewRequest) -> list[RememberedApproval]:
        """
        The approvals that could be remembered for a request, narrowest first, each shown before it is saved.

        This exact plan, this plan in this session, then program prefixes
        from the narrowest (up to `PREFIX_WORDS` leading words) to the
        program alone: each only where the policy allows that width and
        where it would allow this very call.
        """
        found: list[RememberedApproval] = []
        for scope in ("digest", "session"):
            try:
                found.append(self.propose(request, scope))
            except ValueError:
                continue
        if "prefix" in self.options.remember:
            single = self._single_command(request)
            if single is not None:
                _, literal = single
                for words in range(min(len(literal), PREFIX_WORDS), -1, -1):
                    offer = self._prefix_offer(request, literal[:words])
                    if isinstance(offer, RememberedApproval):
                        found.append(offer)
        return found

    def _single_command(self, request: ReviewRequest) -> tuple[str, list[str]] | None:
        plan = request.plan
        if plan is None or plan.status != "measured":
            return None
        commands = [c for s in plan.statements for c in iter_commands(s.plan)]
        if len(commands) != 1 or commands[0].position.program is None:
            return None
        view = CommandView(commands[0])
        literal: list[str] = []
        for arg in view.args:
            if arg is None or arg.startswith("<"):
                break
            literal.append(arg)
        return commands[0].position.program.basename, literal

    def _prefix_offer(
        self, request: ReviewRequest, prefix: Sequence[str] | None = None
    ) -> RememberedApproval | str:
        """
        The prefix approval for ``request``, or why there is none, as a sentence.

        A prefix approval is offered only when it would take effect: with it
        remembered, this very call is allowed. Where a rule asks about the
        command and never yields to a remembered prefix (`Rule.yields_to`),
        or the command reads a secret, the approval would change nothing, so
        it is not offered. What it covers says which asks it would take the
        place of, and what it never covers.
        """
        single = self._single_command(request)
        if single is None:
            return "A prefix approval needs a call of one command whose arguments start with that prefix."
        program, literal = single
        chosen = list(literal[:1] if prefix is None else prefix)
        if chosen != literal[: len(chosen)]:
            return "A prefix approval needs a call of one command whose arguments start with that prefix."
        shown = " ".join([program, *chosen])
        offer = RememberedApproval(
            scope="prefix",
            description=(
                f"Allow `{shown}` followed by anything again without asking, wherever it runs, "
                "unless a rule declines it or asks every time."
            ),
            program=program,
            prefix=tuple(chosen),
        )
        _, roots = workspace_roots(self._paths, request.call.cwd, self._home)
        context = JudgeContext(
            cwd=request.call.cwd,
            roots=roots,
            remembered=(_as_rule(offer),),
            profile=self.rules.profile,
        )
        answer, judgements = self.rules.evaluate(request, context)
        if not isinstance(answer, Allow):
            return (
                f"A prefix approval of `{shown}` would not take effect "
                f"({(answer.reason or 'no rule allows it').rstrip('.')}); remember this exact command instead."
            )
        outranked = [
            rule
            for judgement in judgements
            for rule_id in judgement.rules
            if (rule := self.rules.rule(rule_id)) is not None and rule.decision == "ask"
        ]
        covers = (
            f"`{shown}` with any more words written out (not $X or $(…)), in every directory and session",
            *(
                f"in the place of rule {rule.id}, which asks: it {rule.reason}"
                for rule in outranked
            ),
            "never a decline, an ask the policy repeats every time, reads or writes of secrets and "
            "persistence files, what the shell adds around it (redirects, variables, other commands), "
            f"nor a `{program}` named by a path outside the system's directories",
        )
        return msgspec.structs.replace(offer, covers=covers)

    def propose(
        self, request: ReviewRequest, scope: str, prefix: Sequence[str] | None = None
    ) -> RememberedApproval:
        """
        What remembering this approval with ``scope`` would save, to show before saving.

        Raises:
            ValueError: The scope is unknown or the policy does not allow it
                (``[approver.rules] remember``), or a prefix is asked for a
                call that is not one command, is not a prefix of its
                arguments, or would not take effect.
        """
        approval = self._proposal(request, scope, prefix)
        return msgspec.structs.replace(approval, command=command_shown(request))

    def _proposal(
        self, request: ReviewRequest, scope: str, prefix: Sequence[str] | None
    ) -> RememberedApproval:
        if scope not in REMEMBER_WIDTHS:
            raise ValueError(f"Unknown scope {scope!r}; use 'digest', 'session' or 'prefix'.")
        if scope not in self.options.remember:
            allowed = ", ".join(repr(width) for width in self.options.remember) or "none"
            raise ValueError(
                f"The policy does not let a person remember {scope!r} approvals "
                f"([approver.rules] remember allows {allowed})."
            )
        if scope == "digest":
            return RememberedApproval(
                scope="digest",
                description=f"Allow exactly this command (plan digest {request.digest[:19]}…) again without asking.",
                digest=request.digest,
                covers=(
                    "this exact command, the same plan digest, in every directory and session",
                    "never a decline, nor an ask the policy repeats every time",
                ),
                plan_format=PLAN_FORMAT,
            )
        if scope == "session":
            if not request.call.session_id:
                raise ValueError("The call has no session to scope the approval to.")
            return RememberedApproval(
                scope="session",
                description=f"Allow exactly this command again in session {request.call.session_id!r} without asking.",
                digest=request.digest,
                session_id=request.call.session_id,
                covers=(
                    f"this exact command, the same plan digest, in session {request.call.session_id!r} only",
                    "never a decline, nor an ask the policy repeats every time",
                ),
                plan_format=PLAN_FORMAT,
            )
        offer = self._prefix_offer(request, prefix)
        if isinstance(offer, RememberedApproval):
            return offer
        raise ValueError(offer)

    def remember(
        self,
        request: ReviewRequest,
        scope: str,
        *,
        prefix: Sequence[str] | None = None,
        note: str | None = None,
        decided_by: str | None = None,
    ) -> RememberedApproval:
        """
        Save an approval (as `propose` shows it) and keep it for later reviews.

        The same approval saved again replaces the earlier one (its id is the
        digest of what it allows).

        Raises:
            ValueError: It cannot be remembered that way (see `propose`).
            MemoryFileError: The memory file cannot be read or written.
        """
        approval = msgspec.structs.replace(
            self.propose(request, scope, prefix),
            created=datetime.now(UTC).isoformat(timespec="seconds"),
            note=note,
            decided_by=decided_by,
        )
        self._memory.change(lambda items: [*(i for i in items if i.id != approval.id), approval])
        self._changes += 1
        return approval

    def forget(self, ids: Iterable[str]) -> list[RememberedApproval]:
        """
        Take back the remembered approvals with these ids (or their unique starts); the ones taken back.

        Raises:
            ValueError: An id names no approval, or more than one.
            MemoryFileError: The memory file cannot be read or written.
        """
        forgotten: list[RememberedApproval] = []

        def edit(items: list[RememberedApproval]) -> list[RememberedApproval]:
            chosen = {pick(items, given).id for given in ids}
            forgotten.extend(item for item in items if item.id in chosen)
            return [item for item in items if item.id not in chosen]

        self._memory.change(edit)
        self._changes += 1
        return forgotten


def pick(approvals: Sequence[RememberedApproval], given: str) -> RememberedApproval:
    """
    The approval whose id is ``given`` (``remembered.`` may lead), or starts with it.

    Raises:
        ValueError: None has that id, or several start with it.
    """
    wanted = given.removeprefix(REMEMBERED_PREFIX)
    found = [item for item in approvals if item.id.startswith(wanted)] if wanted else []
    if len(found) == 1:
        return found[0]
    if not found:
        raise ValueError(f"No remembered approval has the id {given!r}.")
    raise ValueError(
        f"{len(found)} remembered approvals have ids that start with {given!r}; give more of it."
    )


def _who(item: RememberedApproval) -> str:
    return f"a person ({item.decided_by})" if item.decided_by else "a person"


def _when(item: RememberedApproval) -> str:
    return f" on {item.created[:10]}" if item.created else ""


def _as_rule(item: RememberedApproval) -> Rule:
    """A remembered prefix as the allow rule it acts as, named by the approval's id."""
    shown = " ".join([item.program or "", *item.prefix])
    return Rule(
        id=f"{REMEMBERED_PREFIX}{item.id}",
        decision="allow",
        programs=(item.program or "",),
        prefix=item.prefix,
        reason=f"{_who(item)} remembered `{shown}` followed by anything{_when(item)}",
    )
