"""
The gateway in the OpenAI Agents SDK (``openai-agents``): guardrails, shell approvals, interruptions.

`OpenAIAgentsGuard` wraps a `gateway.Gateway` and hands the SDK the three hooks
it has for deciding whether a tool may run:

* **Function tools** — `OpenAIAgentsGuard.guard` adds a tool input guardrail
  (`OpenAIAgentsGuard.input_guardrail`) and a ``needs_approval`` function to a
  `FunctionTool`. ``allow`` runs the tool; ``decline`` rejects the call with
  the gateway's reason, which the model sees instead of the tool's output;
  ``ask`` makes ``needs_approval`` true, so the run stops with an interruption
  a person resolves (``RunState.approve`` / ``reject``).
* **The shell tool** — `OpenAIAgentsGuard.shell_tool` builds a `ShellTool` whose
  ``needs_approval`` reviews the commands of the shell *action* (they are not
  tool arguments) and whose ``on_approval`` rejects a declined call at once;
  an ``ask`` becomes an interruption (or goes to the ``ask`` callback).
* **The local shell tool** — `OpenAIAgentsGuard.local_shell_tool` builds a
  `LocalShellTool` (which has no approval step in the SDK) whose executor
  runs only what the gateway allows, or a person says yes to through ``ask``.
* **The apply_patch tool** — `OpenAIAgentsGuard.apply_patch_tool` builds an
  `ApplyPatchTool` whose every call is reviewed with its patch: all its
  operations, written as one patch in the ``apply_patch`` format
  (`patch_input`), so the gateway sees each file it adds, changes, moves or
  deletes, and the diff.
* **Interruptions** — `OpenAIAgentsGuard.resolve_interruptions` approves or
  rejects the pending calls of a ``RunState`` from gateway verdicts and
  returns those only a person can decide.

A call is reviewed once per call id. Every failure of the gateway — a crash, a
hang past ``timeout`` — is a decline, and a guardrail that raises stops the
run; nothing fails open. A person's answer given through the ``ask``
callback is recorded in the audit log (``host.decided``).

`guard` keeps the tool's own ``needs_approval``: a tool its author made ask a
person still asks, whatever the gateway allows (the gateway never weakens the
host). The SDK has no other permission checks, so an allow the plan does not
found (`gateway_guard.host_decision` answers ``host``) runs, as the tool would
run without the gateway; in shadow mode every call runs and is recorded.
"""

from __future__ import annotations

import copy
import inspect
import json
from collections.abc import Mapping, Sequence
from typing import Any, Final, cast

from agents import (
    ApplyPatchEditor,
    ApplyPatchOperation,
    ApplyPatchTool,
    FunctionTool,
    LocalShellCommandRequest,
    LocalShellExecutor,
    LocalShellTool,
    RunContextWrapper,
    RunState,
    ShellActionRequest,
    ShellCommandRequest,
    ShellExecutor,
    ShellTool,
    ToolApprovalItem,
    ToolGuardrailFunctionOutput,
    ToolInputGuardrail,
    ToolInputGuardrailData,
)
from agents.tool import ApplyPatchOnApprovalFunction, ShellOnApprovalFunction, ShellResult
from gateway_guard import (
    DEFAULT_TIMEOUT,
    AskPerson,
    Reviewer,
    VerdictMemory,
    ask_and_record,
    blocked,
    guarded_decision,
    guarded_outcome,
    host_decision,
)

from gateway import ToolCall, Verdict, strictness

__all__ = ["HOST", "OpenAIAgentsGuard", "describe", "patch_input", "shell_commands"]

HOST: Final = "openai-agents"
_NOBODY_TO_ASK: Final = " No person was asked, so the call is rejected."
_EXEC_COMMAND: Final = "exec_command"
"""The sandbox's `ExecCommandTool`: its ``shell`` argument picks the program that runs ``cmd``."""
_BASH_SHELLS: Final = frozenset({"bash"})
"""Only bash: ``sh`` (dash on Debian) reads `$'…'` quotes otherwise, so bash's reading would not be what runs."""
_PATCH_HEADERS: Final = {
    "create_file": "*** Add File: ",
    "update_file": "*** Update File: ",
    "delete_file": "*** Delete File: ",
}


def _field(item: Any, name: str) -> Any:
    """One field of a model output item, given as an object or as a dict."""
    return item.get(name) if isinstance(item, Mapping) else getattr(item, name, None)


def shell_commands(raw_item: Any) -> list[str]:
    """The commands of a shell call's action (a model output item, as object or dict)."""
    commands = _field(_field(raw_item, "action"), "commands")
    if isinstance(commands, str) or not isinstance(commands, Sequence):
        return []
    return [str(command) for command in commands if command is not None]


def _operations(raw_item: Any) -> list[Any] | None:
    """The operations of an apply_patch call (``operations``, or one ``operation``); ``None`` if it is not one."""
    if isinstance(raw_item, ApplyPatchOperation):
        return [raw_item]
    many = _field(raw_item, "operations")
    if isinstance(many, list):
        return many
    one = _field(raw_item, "operation")
    return None if one is None else [one]


def _one_line(text: object) -> bool:
    return (
        isinstance(text, str) and bool(text) and not any(ord(c) < 32 or ord(c) == 127 for c in text)
    )


def patch_input(raw_item: Any) -> dict[str, str] | None:
    """
    An apply_patch call (or one `ApplyPatchOperation`) as the gateway reviews it: ``{"input": PATCH}``.

    PATCH is every operation in the ``apply_patch`` format (``*** Add File:``,
    ``*** Update File:`` with ``*** Move to:``, ``*** Delete File:``, each
    followed by its diff), the format the gateway reads the written files
    from. ``None`` when ``raw_item`` is not an apply_patch call.

    Raises:
        ValueError: An operation the format cannot state faithfully: an unknown
            type, or a path that is empty or holds a line break or another
            control character (one line of the patch would name another file).
    """
    operations = _operations(raw_item)
    if operations is None:
        return None
    if not operations:
        raise ValueError("The patch has no operations, so there is nothing to review.")
    lines = ["*** Begin Patch"]
    for operation in operations:
        kind, path = _field(operation, "type"), _field(operation, "path")
        header = _PATCH_HEADERS.get(kind) if isinstance(kind, str) else None
        if header is None:
            raise ValueError(f"The patch has an operation of unknown type {kind!r}.")
        move_to = _field(operation, "move_to")
        if not _one_line(path) or (move_to is not None and not _one_line(move_to)):
            raise ValueError(
                "The patch names a path that is empty or holds a line break or a control "
                "character, so the files it writes are not known."
            )
        lines.append(header + path)
        if move_to is not None:
            lines.append("*** Move to: " + move_to)
        diff = _field(operation, "diff")
        if isinstance(diff, str) and diff:
            lines.extend(diff.splitlines())
    lines.append("*** End Patch")
    return {"input": "\n".join(lines) + "\n"}


def describe(item: ToolApprovalItem) -> str:
    """
    A pending call as a person should see it: the tool's name and what it would do.

    A shell call's arguments are not in ``item.arguments`` (it is ``None``):
    its commands are shown instead, and an apply_patch call shows its patch.
    """
    name = item.name or "tool"
    commands = shell_commands(item.raw_item)
    if commands:
        return f"{name}: " + "; ".join(commands)
    if _field(item.raw_item, "type") == "apply_patch_call":
        try:
            patch = patch_input(item.raw_item)
        except ValueError as error:
            return f"{name}: {error}"
        return f"{name}:\n" + (patch or {}).get("input", "")
    return f"{name} {item.arguments or '{}'}"


def _refused(
    tool: str, tool_input: dict[str, Any], call_id: str, reason: str
) -> tuple[ToolCall, Verdict]:
    """A call the adapter declines before any review, with one sentence of reason."""
    call = ToolCall(tool, tool_input, call_id=call_id or None, host=HOST)
    return call, blocked(call, reason)


def _shell_outcome(result: object) -> str:
    """``failed`` when a command of a shell result timed out or exited non-zero, else ``succeeded``."""
    outputs = result.output if isinstance(result, ShellResult) else []
    for output in outputs:
        if output.outcome.type != "exit" or output.outcome.exit_code not in (0, None):
            return "failed"
    return "succeeded"


async def _own_approval(setting: Any, *args: Any) -> bool:
    """What a tool's own ``needs_approval`` (a bool, or a function that may be async) says."""
    if isinstance(setting, bool):
        return setting
    answer = setting(*args)
    if inspect.isawaitable(answer):
        answer = await answer
    return bool(answer)


def _arguments(text: str | None) -> dict[str, Any]:
    """A function call's arguments as an object; anything else is kept whole under ``arguments``."""
    if not text:
        return {}
    try:
        value = json.loads(text)
    except ValueError:
        return {"arguments": text}
    return value if isinstance(value, dict) else {"arguments": value}


class OpenAIAgentsGuard:
    """
    Reviews the tool calls of an OpenAI Agents SDK run through the gateway.

    Args:
        gateway: The gateway (or any `gateway_guard.Reviewer`).
        ask: Asks a person about calls the approvers leave to a human. Without
            it, those calls interrupt the run (``needs_approval``) and a
            guardrail that meets one unapproved rejects it.
        timeout: Seconds to wait for a verdict (and for the person) before declining.
        remember: Verdicts kept by call id so a call is reviewed once.
    """

    def __init__(
        self,
        gateway: Reviewer,
        *,
        ask: AskPerson | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        remember: int = 1024,
    ) -> None:
        self.gateway = gateway
        self.ask = ask
        self.timeout = timeout
        self._memory = VerdictMemory(remember)

    # ── reviewing ──

    async def review(
        self, tool: str, tool_input: dict[str, Any], call_id: str
    ) -> tuple[ToolCall, Verdict]:
        """The verdict for one call, reviewed once per call id (and per input)."""
        shell = tool_input.get("shell") if tool == _EXEC_COMMAND else None
        if shell is not None and str(shell).rsplit("/", 1)[-1] not in _BASH_SHELLS:
            return _refused(
                tool,
                tool_input,
                call_id,
                f"The command would run in {str(shell)!r}, not bash, so what it does is not known.",
            )
        call = ToolCall(tool, tool_input, call_id=call_id or None, host=HOST)
        return await self._memory.review(self.gateway, call, within=self.timeout)

    async def review_shell(
        self, tool: str, commands: Sequence[str], call_id: str
    ) -> tuple[ToolCall, Verdict]:
        """
        The verdict for a shell action: each command reviewed as its own call, the strictest wins.

        The commands run one after another, each on its own, so each is planned
        on its own (joining them could read one command's text as part of the
        next). An action without commands is declined.
        """
        if not commands:
            return _refused(
                tool,
                {"command": ""},
                call_id,
                "The shell action has no commands, so there is nothing to review.",
            )
        results = [
            await self.review(
                tool,
                {"command": command},
                call_id if len(commands) == 1 or not call_id else f"{call_id}#{index}",
            )
            for index, command in enumerate(commands)
        ]
        return max(results, key=lambda result: strictness(result[1].decision))

    async def review_patch(
        self, tool: str, raw_item: Any, call_id: str
    ) -> tuple[ToolCall, Verdict]:
        """The verdict for an apply_patch call: all its operations reviewed at once, as one patch."""
        try:
            tool_input = patch_input(raw_item)
        except ValueError as error:
            return _refused(tool, {"input": ""}, call_id, str(error))
        if tool_input is None:
            return _refused(
                tool,
                {"input": ""},
                call_id,
                "The call holds no patch, so there is nothing to review.",
            )
        return await self.review(tool, tool_input, call_id)

    async def review_item(self, item: ToolApprovalItem) -> tuple[ToolCall, Verdict]:
        """The verdict for a pending approval (a function, shell or apply_patch call)."""
        name = item.name or ""
        call_id = item.call_id or ""
        if _field(item.raw_item, "type") == "apply_patch_call":
            return await self.review_patch(name, item.raw_item, call_id)
        commands = shell_commands(item.raw_item)
        if commands:
            return await self.review_shell(name, commands, call_id)
        return await self.review(name, _arguments(item.arguments), call_id)

    async def _person_allows(self, call: ToolCall, verdict: Verdict) -> bool:
        """The ``ask`` callback's answer (no when there is none), recorded in the audit log."""
        return await ask_and_record(self.ask, self.gateway, call, verdict, within=self.timeout)

    # ── function tools ──

    async def _input_guardrail(self, data: ToolInputGuardrailData) -> ToolGuardrailFunctionOutput:
        context = data.context
        call, verdict = await self.review(
            context.tool_name, _arguments(context.tool_arguments), context.tool_call_id
        )
        decision = host_decision(verdict)
        if decision in ("allow", "host"):
            return ToolGuardrailFunctionOutput.allow(output_info=verdict)
        if decision == "ask":
            if context.is_tool_approved(context.tool_name, context.tool_call_id):
                # A person approved the interruption (RunState.approve): their answer is audited.
                await guarded_decision(
                    self.gateway, call.call_id, "allow", by="person", host=HOST, detail="approved"
                )
                return ToolGuardrailFunctionOutput.allow(output_info=verdict)
            if await self._person_allows(call, verdict):
                return ToolGuardrailFunctionOutput.allow(output_info=verdict)
            reason = verdict.reason if self.ask is not None else verdict.reason + _NOBODY_TO_ASK
            return ToolGuardrailFunctionOutput.reject_content(reason, output_info=verdict)
        return ToolGuardrailFunctionOutput.reject_content(verdict.reason, output_info=verdict)

    @property
    def input_guardrail(self) -> ToolInputGuardrail[Any]:
        """
        A tool input guardrail for function tools.

        ``allow`` lets the tool run; ``decline`` rejects it with the gateway's
        reason (the model sees it instead of the output); ``ask`` lets it run
        only if a person already approved the call (``RunState.approve``) or
        the ``ask`` callback says yes.
        """
        return ToolInputGuardrail(guardrail_function=self._input_guardrail, name="agent-gateway")

    def guard(self, tool: FunctionTool) -> FunctionTool:
        """
        A copy of ``tool`` that the gateway reviews before every call.

        Adds the input guardrail, and a ``needs_approval`` that interrupts the
        run when the tool's own ``needs_approval`` says so (whatever the
        gateway allows), or when the verdict is ``ask`` and there is no ``ask``
        callback (a person then approves or rejects through ``RunState``).
        """
        own = tool.needs_approval

        async def needs_approval(
            context: RunContextWrapper[Any], arguments: dict[str, Any], call_id: str
        ) -> bool:
            if await _own_approval(own, context, arguments, call_id):
                return True
            if self.ask is not None:
                return False
            _, verdict = await self.review(tool.name, dict(arguments), call_id)
            return host_decision(verdict) == "ask"

        # A copy, not dataclasses.replace: tools such as the sandbox's
        # ExecCommandTool have an __init__ of their own that takes other arguments.
        guarded = copy.copy(tool)
        guarded.tool_input_guardrails = [*(tool.tool_input_guardrails or []), self.input_guardrail]
        guarded.needs_approval = needs_approval
        return guarded

    # ── the shell tool ──

    async def shell_needs_approval(
        self,
        context: RunContextWrapper[Any],
        action: ShellActionRequest,
        call_id: str,
        *,
        tool: str = "shell",
    ) -> bool:
        """The shell tool's ``needs_approval``: true unless the gateway allows every command."""
        _, verdict = await self.review_shell(tool, action.commands, call_id)
        return host_decision(verdict) not in ("allow", "host")

    async def on_approval(
        self, context: RunContextWrapper[Any], item: ToolApprovalItem
    ) -> Mapping[str, Any]:
        """
        The shell and apply_patch tools' ``on_approval``: reject a decline at once; an ``ask`` goes to a person.

        When there is no ``ask`` callback, the answer names no decision, and the
        SDK keeps the call pending: the run ends with it in ``interruptions``.
        """
        call, verdict = await self.review_item(item)
        decision = host_decision(verdict)
        if decision in ("allow", "host"):
            return {"approve": True}
        if decision == "decline":
            return {"approve": False, "reason": verdict.reason}
        if self.ask is None:
            return {}
        if await self._person_allows(call, verdict):
            return {"approve": True}
        return {"approve": False, "reason": verdict.reason}

    shell_on_approval = on_approval

    def shell_tool(self, executor: ShellExecutor, *, name: str = "shell") -> ShellTool:
        """
        A local `ShellTool` whose every action the gateway reviews before ``executor`` runs it.

        What happened is recorded in the audit log (``call.outcome``):
        ``failed`` when the executor raises or a command times out or exits
        non-zero, else ``succeeded``.

        The gateway must treat ``name`` as a shell tool whose command is in the
        ``command`` field (``shell`` is one by default: ``[[shell-tools]]``).
        """

        async def needs_approval(
            context: RunContextWrapper[Any], action: ShellActionRequest, call_id: str
        ) -> bool:
            return await self.shell_needs_approval(context, action, call_id, tool=name)

        async def run(request: ShellCommandRequest) -> str | ShellResult:
            call_id = request.data.call_id or None
            try:
                result = executor(request)
                if inspect.isawaitable(result):
                    result = await result
            except Exception as error:
                await guarded_outcome(self.gateway, call_id, "failed", type(error).__name__)
                raise
            await guarded_outcome(self.gateway, call_id, _shell_outcome(result))
            return result

        on_approval = cast("ShellOnApprovalFunction", self.on_approval)
        return ShellTool(
            executor=run, name=name, needs_approval=needs_approval, on_approval=on_approval
        )

    # ── the local shell tool ──

    def local_shell_tool(self, executor: LocalShellExecutor) -> LocalShellTool:
        """
        A `LocalShellTool` whose every call the gateway reviews before ``executor`` runs it.

        The SDK gives this tool no approval step, so the review happens in the
        executor: an allow runs ``executor``; a decline does not, and the
        model gets the gateway's reason as the call's output; an ``ask`` goes
        to the ``ask`` callback (yes runs it) and is otherwise refused the same
        way, since the run cannot pause for this tool. The call is reviewed as
        ``local_shell`` with its whole action (the command's words, its
        environment, user and working directory), and its outcome recorded.
        """

        async def run(request: LocalShellCommandRequest) -> str:
            data = request.data
            action = _field(data, "action")
            dumped = getattr(action, "model_dump", None)
            tool_input = {"action": dumped() if callable(dumped) else action}
            call, verdict = await self.review(
                "local_shell", tool_input, _field(data, "call_id") or ""
            )
            decision = host_decision(verdict)
            if decision == "decline":
                return verdict.reason
            if decision == "ask" and not await self._person_allows(call, verdict):
                return verdict.reason + (_NOBODY_TO_ASK if self.ask is None else "")
            try:
                output = executor(request)
                if inspect.isawaitable(output):
                    output = await output
            except Exception as error:
                await guarded_outcome(self.gateway, call.call_id, "failed", type(error).__name__)
                raise
            await guarded_outcome(self.gateway, call.call_id, "succeeded")
            return output

        return LocalShellTool(executor=run)

    # ── the apply_patch tool ──

    def apply_patch_tool(
        self, editor: ApplyPatchEditor, *, name: str = "apply_patch"
    ) -> ApplyPatchTool:
        """
        An `ApplyPatchTool` whose every call the gateway reviews, patch included, before ``editor`` runs.

        Every call goes to ``on_approval``, which reviews all its operations at
        once (`patch_input`): one operation cannot be approved apart from the
        others of its call. The gateway must read ``name`` as a patch tool
        (``apply_patch`` is one by default; another name needs a
        ``[[tool-effects]]`` row with ``patches = ["input"]``).
        """
        on_approval = cast("ApplyPatchOnApprovalFunction", self.on_approval)
        return ApplyPatchTool(
            editor=editor, name=name, needs_approval=True, on_approval=on_approval
        )

    # ── interruptions ──

    async def resolve_interruptions(self, state: RunState[Any]) -> list[ToolApprovalItem]:
        """
        Approve or reject the run's pending calls from gateway verdicts.

        ``allow`` approves and ``decline`` rejects (with the gateway's reason as
        the message the model sees). An ``ask`` goes to the ``ask`` callback
        when there is one (yes approves, anything else rejects); otherwise it
        stays pending and is returned, for a person to decide before the run is
        resumed with ``Runner.run(agent, state)``.

        Returns:
            The calls still pending.
        """
        pending: list[ToolApprovalItem] = []
        for item in state.get_interruptions():
            call, verdict = await self.review_item(item)
            decision = host_decision(verdict)
            if decision == "allow":
                state.approve(item)
            elif decision == "decline":
                state.reject(item, rejection_message=verdict.reason)
            elif self.ask is None or decision == "host":
                # ``host``: the tool's own needs_approval asked for a person; the gateway has no founded answer.
                pending.append(item)
            elif await self._person_allows(call, verdict):
                state.approve(item)
            else:
                state.reject(item, rejection_message=verdict.reason)
        return pending
