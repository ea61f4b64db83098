"""
Where the rules judge a call: on the event loop when it is small, in a bounded worker otherwise.

Judging is linear in the size of what it judges (`gateway_rules._engine`),
but what it judges can be large: the plan of a 64 KiB awk program that runs
thousands of ``system()`` texts, nested shell text, effects whose text grew
with every assignment it names. On the gateway's event loop such a call
would stop every timer and every other review for as long as it takes, so
the approver hands it to the gateway's pool of worker processes
(`gateway.bounded`), where the approver's deadline really holds: when the
chain's deadline passes, the worker is killed and the call is declined with
one sentence, while other reviews go on in the other workers and on the loop.

A call is judged inline only when a cheap bound says it is small: the size
of its judging question as MessagePack (`JudgeQuestion`: the request, the
remembered prefix approvals, the repository inspections), times the weight of
the rules it is judged by (`rule_weight`), is at most `INLINE_BUDGET`. Encoding is what the
worker would need anyway, and the encoded bytes are what is sent, so the
bound costs nothing extra on the path to the worker. Judging is linear in
what the question holds and in what the rules match with: globs are automata, and
every text is walked a bounded number of times per rule and per level of
nesting, which the reader caps (`gateway._read._limits.MAX_NESTING` levels, else the plan is
unmeasured). So the bound caps the time the loop spends judging one call;
``benchmarks/review.py`` measures it (``rules judging`` in its output).

The worker keeps the rule sets it was sent, by the digest of their encoding:
the rules travel with every question (a few tens of KiB, copied, not
re-parsed), and are compiled once per worker.
"""

from __future__ import annotations

import hashlib
from typing import Final, NamedTuple

import msgspec

from gateway import Abstain, Answer, Decline, ReviewRequest
from gateway.bounded import (
    BoundedFailure,
    BoundedPool,
    bounded_task,
    charge,
    cpu_left,
    thread_cpu_seconds,
)
from gateway.git import RepositoryInspection
from gateway_rules._context import repository_check
from gateway_rules._engine import JudgeContext, RuleSet
from gateway_rules._schema import Rule

__all__ = [
    "INLINE_BUDGET",
    "SPENT",
    "TOO_DEEP",
    "EncodedRules",
    "Judge",
    "JudgeQuestion",
    "JudgingStatistics",
    "judge",
    "judge_here",
    "rule_weight",
]

INLINE_BUDGET: Final = 4 * 1024 * 1024
"""
Encoded bytes of a question times the weight of its rules, at most, for judging it inline.

A rule weighs one, plus one per name, glob, class or word it matches with
(`rule_weight`); the default policy weighs about 600, so its budget is a
question of about 7 KiB: nine calls in ten of the agent corpus. Judging the
hostile shapes measured (nested substitutions, thousands of awk ``system()``
texts, long pipelines and lists, ``find -exec``) costs at most about 1 ns per
byte-weight on a busy machine, so a call judged inline holds the event loop
for a few milliseconds at most.
"""

TOO_DEEP: Final = "The plan nests too deeply for the rules to judge it."

SPENT: Final = "The rules could not judge the call within the CPU time a review may use, so a person must decide."
"""Why the rules abstain when the review's CPU budget is spent (`gateway.bounded.cpu_left`)."""

_KEPT: Final = 4
"""Rule sets a worker keeps compiled (a policy replaced now and then, and its profiles)."""


class EncodedRules(msgspec.Struct, frozen=True, kw_only=True):
    """
    A rule set as a worker receives it.

    Attributes:
        key: The digest of ``rules``, ``profile`` and ``confine_code``:
            which compiled rule set it is.
        profile: The profile in force.
        rules: The rules (``tuple[Rule, ...]``), as MessagePack.
        confine_code: `RuleSet.confine_code`.
    """

    key: str
    profile: str
    rules: msgspec.Raw
    confine_code: bool = False

    @classmethod
    def of(cls, rules: RuleSet) -> EncodedRules:
        """Encode a rule set once (its rules, profile, and whether code runs confined)."""
        data = msgspec.msgpack.encode(rules.rules)
        tail = b"\0" + rules.profile.encode() + (b"\0confined" if rules.confine_code else b"")
        digest = hashlib.sha256(data + tail).hexdigest()
        return cls(
            key=digest,
            profile=rules.profile,
            rules=msgspec.Raw(data),
            confine_code=rules.confine_code,
        )


class JudgeQuestion(msgspec.Struct, frozen=True, kw_only=True):
    """
    One request to judge, with everything judging needs from outside its plan.

    Attributes:
        request: The review request.
        roots: The workspace roots, as effect paths show them.
        remembered: Remembered prefix approvals, as allow rules.
        inspections: The repository inspections by directory (see
            `gateway_rules._context.repository_check`).
        digest_allowed: A person's remembered approval of this plan digest:
            its id, and who remembered it when (`RuleSet.evaluate`).
        links: The classes of where paths lead through symbolic links
            (`gateway_rules._context.look_at_disk`).
        programs: The programs named bare that ``PATH`` finds where the
            agent can write, and the file (`gateway_rules._context.path_programs`).
    """

    request: ReviewRequest
    roots: tuple[str, ...]
    remembered: tuple[Rule, ...] = ()
    inspections: dict[str, RepositoryInspection] = msgspec.field(default_factory=dict)
    digest_allowed: tuple[str, str] | None = None
    links: dict[str, tuple[str, ...]] = msgspec.field(default_factory=dict)
    programs: dict[str, str] = msgspec.field(default_factory=dict)


class _Judging(msgspec.Struct, frozen=True, kw_only=True):
    rules: EncodedRules
    question: msgspec.Raw


def judge_here(rules: RuleSet, question: JudgeQuestion) -> Answer:
    """Judge a question with a rule set, in this process."""
    context = JudgeContext(
        cwd=question.request.call.cwd,
        roots=question.roots,
        remembered=question.remembered,
        repository=repository_check(question.inspections),
        profile=rules.profile,
        links=question.links,
        programs=question.programs,
    )
    try:
        answer, _ = rules.evaluate(
            question.request, context, digest_allowed=question.digest_allowed
        )
    except RecursionError:
        return Abstain(reason=TOO_DEEP)
    return answer


_ENCODER: Final = msgspec.msgpack.Encoder()
_COMPILED: dict[str, RuleSet] = {}
_QUESTION: Final = msgspec.msgpack.Decoder(JudgeQuestion)
_RULES: Final = msgspec.msgpack.Decoder(tuple[Rule, ...])


@bounded_task
def judge(judging: _Judging) -> Answer:
    """Judge a question in a worker, compiling its rule set once per worker."""
    encoded = judging.rules
    rules = _COMPILED.get(encoded.key)
    if rules is None:
        rules = RuleSet(
            _RULES.decode(encoded.rules), encoded.profile, confine_code=encoded.confine_code
        )
        while len(_COMPILED) >= _KEPT:
            del _COMPILED[next(iter(_COMPILED))]
        _COMPILED[encoded.key] = rules
    return judge_here(rules, _QUESTION.decode(judging.question))


_UNWEIGHED: Final = frozenset({"match", "not_match", "profiles"})
_WEIGHED: Final = tuple(
    field.name for field in msgspec.structs.fields(Rule) if field.name not in _UNWEIGHED
)


def rule_weight(rule: Rule) -> int:
    """
    What judging one command by ``rule`` costs, in units of the cheapest rule.

    One, plus one per entry of every list it matches with (programs, options,
    argument globs, path classes and globs…): each is tried against the
    command. Its examples are not: they are checked when the rules load.
    """
    return 1 + sum(
        len(value) for name in _WEIGHED if isinstance(value := getattr(rule, name), tuple)
    )


class JudgingStatistics(NamedTuple):
    """
    How an approver's questions were judged.

    Attributes:
        inline: Questions judged on the event loop (small by `INLINE_BUDGET`).
        in_workers: Questions sent to a worker.
        failed: Of those, how many had no answer (the worker ran out of
            memory, died, or was stopped by the deadline's own bound).
        longest_inline: The most CPU time one inline judging took, in seconds
            (the time it held the event loop, less any time the machine gave
            to other processes meanwhile).
    """

    inline: int
    in_workers: int
    failed: int
    longest_inline: float


class Judge:
    """
    Judges questions inline or in a pool's workers, by `INLINE_BUDGET`.

    Args:
        pool: The gateway's pool of workers, or ``None`` (then every question
            is judged inline, by the caller, wherever it runs).
        bound: Seconds a worker may judge one question: a bound of its own
            for a caller with no deadline; a chain's deadline cuts sooner.
    """

    def __init__(self, pool: BoundedPool | None, bound: float) -> None:
        self._pool = pool
        self._bound = bound
        self._encoded: tuple[RuleSet, EncodedRules, int] | None = None
        self._inline = self._in_workers = self._failed = 0
        self._longest = 0.0

    def statistics(self) -> JudgingStatistics:
        """Counters for benchmarks and monitoring."""
        return JudgingStatistics(self._inline, self._in_workers, self._failed, self._longest)

    async def answer(self, rules: RuleSet, question: JudgeQuestion) -> Answer:
        """The answer to ``question`` by ``rules``; a decline with one sentence when a worker has none."""
        if self._pool is None:
            return self._here(rules, question)
        left = cpu_left()
        if left is not None and left <= 0:
            # The review's CPU budget is spent: nothing is encoded or judged.
            self._failed += 1
            return Abstain(reason=SPENT)
        started = thread_cpu_seconds()
        if self._encoded is None or self._encoded[0] is not rules:
            weight = sum(rule_weight(rule) for rule in rules.active)
            self._encoded = (rules, EncodedRules.of(rules), weight)
        _, shipped, weight = self._encoded
        weight += sum(rule_weight(rule) for rule in question.remembered)
        encoded = _ENCODER.encode(question)
        charge(thread_cpu_seconds() - started)
        if len(encoded) * weight <= INLINE_BUDGET:
            return self._here(rules, question)
        self._in_workers += 1
        answer = await self._pool.run(
            judge, _Judging(rules=shipped, question=msgspec.Raw(encoded)), timeout=self._bound
        )
        if isinstance(answer, BoundedFailure):
            self._failed += 1
            if answer.kind == "cpu":
                # Too costly to judge is not a reason to refuse: a person decides.
                return Abstain(reason=SPENT)
            return Decline(
                reason=f"The rules could not judge the call ({answer.reason}), and the gateway fails closed."
            )
        return answer

    def _here(self, rules: RuleSet, question: JudgeQuestion) -> Answer:
        self._inline += 1
        started = thread_cpu_seconds()
        try:
            return judge_here(rules, question)
        finally:
            used = thread_cpu_seconds() - started
            self._longest = max(self._longest, used)
            # Judged here for the review: its CPU counts against the review's budget.
            charge(used)
