"""
Stand-ins for the model APIs the real agent CLIs call, so the CLIs run offline.

`ScriptedModel` is a small HTTP server on a free loopback port that speaks
just enough of three streaming APIs — Anthropic's Messages API (Claude Code),
OpenAI's Responses API (Codex CLI) and Google's ``streamGenerateContent``
(Gemini CLI) — to play a model that proposes one scripted tool call per turn
and then says it is done. It records what the CLI showed the model: every
tool result (`ScriptedModel.results`), so a test can assert what the model
saw (a file listing, a refusal's reason, never a secret).

The server is bounded: each request is read with a size limit and answered
at once; it stops when the test leaves the ``with`` block.
"""

from __future__ import annotations

import itertools
import json
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar, Final

__all__ = ["ScriptedModel", "ToolUse"]

MAX_REQUEST: Final = 16 * 1024 * 1024


@dataclass(frozen=True)
class ToolUse:
    """One tool call the scripted model proposes: the tool's name and its input."""

    name: str
    input: dict[str, Any]


@dataclass
class _Script:
    calls: list[ToolUse]
    results: list[str] = field(default_factory=list)
    requests: list[dict[str, Any]] = field(default_factory=list)
    proposed: int = 0
    openai_seen: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)
    ids: Iterator[int] = field(default_factory=lambda: itertools.count(1))

    def next_call(self) -> ToolUse | None:
        with self.lock:
            if self.proposed >= len(self.calls):
                return None
            self.proposed += 1
            return self.calls[self.proposed - 1]


def _text(value: Any) -> str:
    """The text of a tool result, whatever shape the API gives it."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "\n".join(_text(item) for item in value)
    if isinstance(value, dict):
        for key in ("text", "content", "output", "result", "llmContent"):
            if key in value:
                return _text(value[key])
        return json.dumps(value)
    return "" if value is None else str(value)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    script: ClassVar[_Script]

    def log_message(self, format: str, *args: Any) -> None:
        pass

    # ── plumbing ──

    def _body(self) -> dict[str, Any]:
        length = int(self.headers.get("content-length") or 0)
        if length > MAX_REQUEST:
            raise ValueError("request too large")
        raw = self.rfile.read(length) if length else b"{}"
        value = json.loads(raw or b"{}")
        return value if isinstance(value, dict) else {}

    def _json(self, value: Any, status: int = 200) -> None:
        data = json.dumps(value).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _sse(self, events: Sequence[tuple[str | None, Any]]) -> None:
        chunks = []
        for name, data in events:
            head = f"event: {name}\n" if name else ""
            chunks.append(f"{head}data: {json.dumps(data)}\n\n".encode())
        body = b"".join(chunks)
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("cache-control", "no-cache")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        if "/models" in self.path:
            self._json({"object": "list", "data": [], "models": []})
        else:
            self._json({"error": {"type": "not_found", "message": self.path}}, 404)

    def do_POST(self) -> None:
        try:
            body = self._body()
        except ValueError:
            self._json({"error": {"message": "bad request"}}, 400)
            return
        self.script.requests.append({"path": self.path, "body": body})
        path = self.path.split("?", 1)[0]
        if path.endswith("/messages/count_tokens"):
            self._json({"input_tokens": 10})
        elif path.endswith("/messages"):
            self._anthropic(body)
        elif path.endswith("/responses"):
            self._openai(body)
        elif ":streamGenerateContent" in path or ":generateContent" in path:
            self._gemini(body, stream=":streamGenerateContent" in path)
        elif ":countTokens" in path:
            self._json({"totalTokens": 10})
        else:
            self._json({"error": {"message": f"no such endpoint {path}"}}, 404)

    # ── Anthropic Messages API (Claude Code) ──

    def _anthropic(self, body: dict[str, Any]) -> None:
        messages = body.get("messages") or []
        last = messages[-1] if messages else {}
        content = last.get("content") if isinstance(last, dict) else None
        results = [
            block
            for block in (content if isinstance(content, list) else [])
            if isinstance(block, dict) and block.get("type") == "tool_result"
        ]
        self.script.results.extend(_text(block.get("content")) for block in results)
        # Requests without tools (a title, a summary) get text; every turn with
        # tools gets the next scripted call until there are none.
        call = self.script.next_call() if body.get("tools") else None
        start = {
            "type": "message_start",
            "message": {
                "id": f"msg_{next(self.script.ids)}",
                "type": "message",
                "role": "assistant",
                "model": body.get("model", "claude"),
                "content": [],
                "stop_reason": None,
                "stop_sequence": None,
                "usage": {"input_tokens": 10, "output_tokens": 1},
            },
        }
        events: list[tuple[str | None, Any]] = [("message_start", start)]
        if call is None:
            block: dict[str, Any] = {"type": "text", "text": ""}
            delta = {"type": "text_delta", "text": "Done."}
            stop = "end_turn"
        else:
            block = {
                "type": "tool_use",
                "id": f"toolu_{next(self.script.ids):04d}",
                "name": call.name,
                "input": {},
            }
            delta = {"type": "input_json_delta", "partial_json": json.dumps(call.input)}
            stop = "tool_use"
        events += [
            (
                "content_block_start",
                {"type": "content_block_start", "index": 0, "content_block": block},
            ),
            ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}),
            ("content_block_stop", {"type": "content_block_stop", "index": 0}),
            (
                "message_delta",
                {
                    "type": "message_delta",
                    "delta": {"stop_reason": stop, "stop_sequence": None},
                    "usage": {"output_tokens": 5},
                },
            ),
            ("message_stop", {"type": "message_stop"}),
        ]
        self._sse(events)

    # ── OpenAI Responses API (Codex CLI) ──

    def _openai(self, body: dict[str, Any]) -> None:
        items = body.get("input") or []
        outputs = [
            item
            for item in items
            if isinstance(item, dict)
            and item.get("type") in ("function_call_output", "custom_tool_call_output")
        ]
        # Codex sends the whole conversation each turn: only new results count.
        self.script.results.extend(
            _text(item.get("output")) for item in outputs[self.script.openai_seen :]
        )
        self.script.openai_seen = len(outputs)
        tools = [
            t.get("name") or t.get("type") for t in body.get("tools") or [] if isinstance(t, dict)
        ]
        call = self.script.next_call() if tools else None
        response_id = f"resp_{next(self.script.ids)}"
        if call is None:
            item: dict[str, Any] = {
                "type": "message",
                "id": f"msg_{next(self.script.ids)}",
                "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": "Done.", "annotations": []}],
            }
        else:
            item = {
                "type": "function_call",
                "id": f"fc_{next(self.script.ids)}",
                "call_id": f"call_{next(self.script.ids)}",
                "name": call.name,
                "arguments": json.dumps(call.input),
                "status": "completed",
            }
        usage = {
            "input_tokens": 10,
            "output_tokens": 5,
            "total_tokens": 15,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens_details": {"reasoning_tokens": 0},
        }
        self._sse(
            [
                ("response.created", {"type": "response.created", "response": {"id": response_id}}),
                (
                    "response.output_item.added",
                    {"type": "response.output_item.added", "output_index": 0, "item": item},
                ),
                (
                    "response.output_item.done",
                    {"type": "response.output_item.done", "output_index": 0, "item": item},
                ),
                (
                    "response.completed",
                    {"type": "response.completed", "response": {"id": response_id, "usage": usage}},
                ),
            ]
        )

    # ── Gemini streamGenerateContent (Gemini CLI) ──

    def _gemini(self, body: dict[str, Any], *, stream: bool) -> None:
        contents = body.get("contents") or []
        last = contents[-1] if contents else {}
        parts = last.get("parts") if isinstance(last, dict) else None
        responses = [
            part["functionResponse"]
            for part in (parts if isinstance(parts, list) else [])
            if isinstance(part, dict) and isinstance(part.get("functionResponse"), dict)
        ]
        self.script.results.extend(_text(r.get("response")) for r in responses)
        declared = body.get("tools") or []
        has_tools = any(isinstance(t, dict) and t.get("functionDeclarations") for t in declared)
        call = self.script.next_call() if has_tools and last.get("role") == "user" else None
        if call is None:
            part: dict[str, Any] = {"text": "Done."}
        else:
            part = {"functionCall": {"name": call.name, "args": call.input}}
        chunk = {
            "candidates": [
                {"content": {"role": "model", "parts": [part]}, "finishReason": "STOP", "index": 0}
            ],
            "usageMetadata": {
                "promptTokenCount": 10,
                "candidatesTokenCount": 5,
                "totalTokenCount": 15,
            },
            "modelVersion": "gemini-2.5-pro",
        }
        if stream:
            self._sse([(None, chunk)])
        else:
            self._json(chunk)


class ScriptedModel:
    """
    A model API stand-in proposing ``calls`` one per turn, on a free loopback port.

    Attributes:
        url: ``http://127.0.0.1:PORT`` (the CLIs add their own paths).
        results: The text of every tool result the CLI sent back, in order.
        requests: Every request, as ``{"path", "body"}``.
    """

    def __init__(self, calls: Sequence[ToolUse]) -> None:
        self._script = _Script(list(calls))
        handler = type("Handler", (_Handler,), {"script": self._script})
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"

    @property
    def results(self) -> list[str]:
        """What the model was shown of each tool call's result."""
        return list(self._script.results)

    @property
    def requests(self) -> list[dict[str, Any]]:
        """Every request the CLI made."""
        return list(self._script.requests)

    @property
    def proposed(self) -> int:
        """How many scripted calls were proposed."""
        return self._script.proposed

    def __enter__(self) -> ScriptedModel:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(10)
