"""
The LangChain middleware, driven through ``create_agent`` with a scripted chat model.

`ScriptedChatModel` is a real `BaseChatModel` that answers from a script: first
three tool calls of a ``shell`` tool (``ls``, ``rm -rf ~`` and a command that
needs a person), then a final message. The agent graph, its tool node, the
middleware chain, LangGraph's ``interrupt()`` and the in-memory checkpointer
are all the real ones.
"""

from __future__ import annotations

from typing import Any

import pytest
from gateway_langchain import INTERRUPT_KIND, GatewayMiddleware
from langchain.agents import create_agent
from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.tools import BaseTool, tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command

from adapters.scripted import (
    ALLOWED,
    DECLINED,
    NEEDS_HUMAN,
    CrashingGateway,
    HangingGateway,
    ScriptApprover,
)
from gateway import Gateway, ToolCall, Verdict

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
    ran: list[str] = []
    async with Gateway(approvers=[approver]) as gateway:
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
        assert pause.value["kind"] == INTERRUPT_KIND
        assert (pause.value["call_id"], pause.value["input"]) == (
            "call_2",
            {"command": NEEDS_HUMAN},
        )

        resumed = await agent.ainvoke(
            Command(resume={"decision": "allow", "digest": pause.value["digest"]}), config
        )
    assert ran == [ALLOWED, NEEDS_HUMAN]
    assert resumed["messages"][-1].content == "done"
    assert len(approver.requests) == 3  # the replayed call was not reviewed again


async def test_a_declining_person_resumes_with_a_tool_error(gateway: Gateway) -> None:
    ran: list[str] = []
    agent = create_agent(
        model=ScriptedChatModel(script=[shell_calls(NEEDS_HUMAN), AIMessage(content="done")]),
        tools=[shell_tool(ran)],
        middleware=[GatewayMiddleware(gateway)],
        checkpointer=InMemorySaver(),
    )
    config: Any = {"configurable": {"thread_id": "t2"}}
    await agent.ainvoke({"messages": [HumanMessage("push it")]}, config)
    resumed = await agent.ainvoke(
        Command(resume={"decision": "decline", "note": "Not today."}), config
    )
    assert ran == []
    assert tool_messages(resumed)["call_0"].content == "Not today."
    assert tool_messages(resumed)["call_0"].status == "error"


async def test_an_approval_bound_to_another_digest_is_refused(gateway: Gateway) -> None:
    ran: list[str] = []
    agent = create_agent(
        model=ScriptedChatModel(script=[shell_calls(NEEDS_HUMAN), AIMessage(content="done")]),
        tools=[shell_tool(ran)],
        middleware=[GatewayMiddleware(gateway)],
        checkpointer=InMemorySaver(),
    )
    config: Any = {"configurable": {"thread_id": "t3"}}
    await agent.ainvoke({"messages": [HumanMessage("push it")]}, config)
    resumed = await agent.ainvoke(
        Command(resume={"decision": "allow", "digest": "sha256:" + "0" * 64}), config
    )
    assert ran == []
    assert "different plan digest" in str(tool_messages(resumed)["call_0"].content)


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
