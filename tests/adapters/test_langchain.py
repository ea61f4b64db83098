"""
The LangChain middleware, driven through ``create_agent`` with a scripted chat model.

`ScriptedChatModel` is a real `BaseChatModel` that answers from a script: first
tool calls of a ``shell`` tool (allowed, declined, and commands that need a
person), then a final message. The agent graph, its tool node, the
middleware chain, LangGraph's ``interrupt()`` (in LangChain's own per-call
human-in-the-loop format) and the in-memory checkpointer are all the real
ones.
"""

from __future__ import annotations

from typing import Any

import pytest
from gateway_langchain import GatewayMiddleware
from langchain.agents import create_agent
from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.tools import BaseTool, tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command
from pydantic import ValidationError

from adapters.scripted import (
    ALLOWED,
    ASK_REASON,
    DECLINED,
    NEEDS_HUMAN,
    CrashingGateway,
    HangingGateway,
    ScriptApprover,
)
from gateway import Gateway, ToolCall, Verdict
from gateway.events import CallOutcome, HostDecided
from gateway.testing import MemorySink

pytestmark = pytest.mark.anyio


class ScriptedChatModel(BaseChatModel):
    """A chat model that returns its scripted messages in order, then repeats the last."""

    script: list[AIMessage]
    calls: int = 0

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: Any = None,
        **kwargs: Any,
    ) -> ChatResult:
        message = self.script[min(self.calls, len(self.script) - 1)]
        self.calls += 1
        return ChatResult(generations=[ChatGeneration(message=message)])

    def bind_tools(self, tools: Any, **kwargs: Any) -> ScriptedChatModel:
        return self

    @property
    def _llm_type(self) -> str:
        return "scripted"


def shell_calls(*commands: str) -> AIMessage:
    return AIMessage(
        content="",
        tool_calls=[
            {
                "name": "shell",
                "args": {"command": command},
                "id": f"call_{number}",
                "type": "tool_call",
            }
            for number, command in enumerate(commands)
        ],
    )


def shell_tool(ran: list[str]) -> BaseTool:
    @tool
    def shell(command: str) -> str:
        """Run a shell command."""
        ran.append(command)
        return "ok"

    return shell


def tool_messages(result: dict[str, Any]) -> dict[str, ToolMessage]:
    return {m.tool_call_id: m for m in result["messages"] if isinstance(m, ToolMessage)}


async def test_allow_runs_decline_is_a_tool_error_and_ask_interrupts_then_resumes() -> None:
    approver = ScriptApprover()
    sink = MemorySink()
    ran: list[str] = []
    async with Gateway(approvers=[approver], sinks={"memory": sink}) as gateway:
        agent = create_agent(
            model=ScriptedChatModel(
                script=[shell_calls(ALLOWED, DECLINED, NEEDS_HUMAN), AIMessage(content="done")]
            ),
            tools=[shell_tool(ran)],
            middleware=[GatewayMiddleware(gateway)],
            checkpointer=InMemorySaver(),
        )
        config: Any = {"configurable": {"thread_id": "t1"}}
        first = await agent.ainvoke({"messages": [HumanMessage("tidy my home")]}, config)
        assert ran == [ALLOWED]
        messages = tool_messages(first)
        assert messages["call_0"].status == "success"
        assert messages["call_1"].status == "error"
        assert messages["call_1"].content == "Declined `rm -rf ~`: it deletes the home directory."
        (pause,) = first["__interrupt__"]
        # LangChain's own human-in-the-loop request, with the rule's reason.
        assert pause.value == {
            "type": "tool_approval",
            "tool_call_id": "call_2",
            "name": "shell",
            "args": {"command": NEEDS_HUMAN},
            "description": ASK_REASON,
        }
        resumed = await agent.ainvoke(Command(resume={pause.id: {"type": "approve"}}), config)
    assert ran == [ALLOWED, NEEDS_HUMAN]
    assert resumed["messages"][-1].content == "done"
    assert len(approver.requests) == 3  # the replayed call was not reviewed again
    (decided,) = [e for e in sink.events if isinstance(e, HostDecided)]
    assert (decided.call_id, decided.decision, decided.by, decided.host) == (
        "call_2",
        "allow",
        "person",
        "langchain",
    )
    outcomes = {e.call_id: e.outcome for e in sink.events if isinstance(e, CallOutcome)}
    assert outcomes == {"call_0": "succeeded", "call_2": "succeeded"}


async def test_two_asks_in_one_turn_pause_together_and_resume_together(gateway: Gateway) -> None:
    """The documented resume loop: every pending interrupt answered by its id, at once."""
    ran: list[str] = []
    agent = create_agent(
        model=ScriptedChatModel(
            script=[shell_calls(NEEDS_HUMAN, "make deploy"), AIMessage(content="done")]
        ),
        tools=[shell_tool(ran)],
        middleware=[GatewayMiddleware(gateway)],
        checkpointer=InMemorySaver(),
    )
    config: Any = {"configurable": {"thread_id": "t-two"}}
    result = await agent.ainvoke({"messages": [HumanMessage("ship it")]}, config)
    rounds = 0
    while result.get("__interrupt__"):
        rounds += 1
        assert rounds <= 3
        answers = {
            pause.id: {"type": "approve"}
            if pause.value["args"]["command"] == NEEDS_HUMAN
            else {"type": "reject", "message": "Not on a Friday."}
            for pause in result["__interrupt__"]
        }
        result = await agent.ainvoke(Command(resume=answers), config)
    assert ran == [NEEDS_HUMAN]
    messages = tool_messages(result)
    assert messages["call_1"].status == "error"
    assert messages["call_1"].content == "A person declined the call: Not on a Friday."
    assert result["messages"][-1].content == "done"


async def test_a_rejecting_person_resumes_with_a_tool_error(gateway: Gateway) -> None:
    ran: list[str] = []
    agent = create_agent(
        model=ScriptedChatModel(script=[shell_calls(NEEDS_HUMAN), AIMessage(content="done")]),
        tools=[shell_tool(ran)],
        middleware=[GatewayMiddleware(gateway)],
        checkpointer=InMemorySaver(),
    )
    config: Any = {"configurable": {"thread_id": "t2"}}
    first = await agent.ainvoke({"messages": [HumanMessage("push it")]}, config)
    (pause,) = first["__interrupt__"]
    resumed = await agent.ainvoke(
        Command(resume={pause.id: {"type": "reject", "message": "Not today."}}), config
    )
    assert ran == []
    assert tool_messages(resumed)["call_0"].content == "A person declined the call: Not today."
    assert tool_messages(resumed)["call_0"].status == "error"


async def test_an_edit_is_not_an_answer(gateway: Gateway) -> None:
    """An edited call is not the call the gateway reviewed: LangGraph refuses the answer, nothing runs."""
    ran: list[str] = []
    agent = create_agent(
        model=ScriptedChatModel(script=[shell_calls(NEEDS_HUMAN), AIMessage(content="done")]),
        tools=[shell_tool(ran)],
        middleware=[GatewayMiddleware(gateway)],
        checkpointer=InMemorySaver(),
    )
    config: Any = {"configurable": {"thread_id": "t3"}}
    first = await agent.ainvoke({"messages": [HumanMessage("push it")]}, config)
    (pause,) = first["__interrupt__"]
    edit = {"type": "edit", "edited_action": {"name": "shell", "args": {"command": "rm -rf ~"}}}
    with pytest.raises(ValidationError):
        await agent.ainvoke(Command(resume={pause.id: edit}), config)
    assert ran == []


async def test_without_a_checkpointer_ask_is_declined(gateway: Gateway) -> None:
    ran: list[str] = []
    agent = create_agent(
        model=ScriptedChatModel(script=[shell_calls(NEEDS_HUMAN), AIMessage(content="done")]),
        tools=[shell_tool(ran)],
        middleware=[GatewayMiddleware(gateway)],
    )
    result = await agent.ainvoke({"messages": [HumanMessage("push it")]})
    assert ran == []
    message = tool_messages(result)["call_0"]
    assert message.status == "error"
    assert "No person could be asked" in str(message.content)


async def test_an_ask_callback_decides_instead_of_pausing(gateway: Gateway) -> None:
    asked: list[str] = []

    async def person(call: ToolCall, verdict: Verdict) -> bool:
        asked.append(call.input["command"])
        return True

    ran: list[str] = []
    agent = create_agent(
        model=ScriptedChatModel(script=[shell_calls(NEEDS_HUMAN), AIMessage(content="done")]),
        tools=[shell_tool(ran)],
        middleware=[GatewayMiddleware(gateway, ask=person)],
        checkpointer=InMemorySaver(),
    )
    result = await agent.ainvoke(
        {"messages": [HumanMessage("push it")]}, {"configurable": {"thread_id": "t4"}}
    )
    assert (asked, ran) == ([NEEDS_HUMAN], [NEEDS_HUMAN])
    assert "__interrupt__" not in result


@pytest.mark.parametrize("broken", [CrashingGateway, HangingGateway], ids=["crash", "hang"])
async def test_a_failing_gateway_blocks_the_call(
    broken: type[CrashingGateway | HangingGateway],
) -> None:
    reviewer = broken()
    ran: list[str] = []
    agent = create_agent(
        model=ScriptedChatModel(script=[shell_calls(ALLOWED), AIMessage(content="done")]),
        tools=[shell_tool(ran)],
        middleware=[GatewayMiddleware(reviewer, timeout=0.2)],
    )
    result = await agent.ainvoke({"messages": [HumanMessage("list")]})
    assert ran == []
    message = tool_messages(result)["call_0"]
    assert message.status == "error"
    assert "blocked" in str(message.content)
    assert len(reviewer.calls) == 1
