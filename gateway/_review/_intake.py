"""
The door: every call is checked before anything else is done with it.

`Gateway.review` is public API: a host can hand it anything its language can
build — a number for a tool name, an ``object()`` in the input, a dict that
contains itself, text with a lone surrogate, 100,000 levels of nesting. None
of that may crash a review, reach an approver, or write a record no reader
can decode. So `admit` checks every field of the call, bounded in time and
memory, and either returns it with the key the gateway caches its reading
under, or says in one clause what is wrong, for the decline.

What passes is JSON-like data the audit log can hold exactly: an input that
is an object with string keys, holding strings (valid Unicode, no NUL),
whole numbers that fit in 64 bits, finite floats, booleans, null, lists and
objects, no deeper than `MAX_DEPTH`, no more than `MAX_VALUES` values and
`MAX_INPUT_BYTES` bytes as JSON.
"""

from __future__ import annotations

import operator
import uuid
from collections.abc import Callable
from typing import Any, Final, NamedTuple

import msgspec

from gateway._calls._calls import ToolCall

__all__ = ["MAX_DEPTH", "MAX_INPUT_BYTES", "MAX_VALUES", "Admitted", "admit"]

MAX_INPUT_BYTES: Final = 8 * 1024 * 1024
"""The largest input, as JSON (a hook event may be this large)."""

MAX_DEPTH: Final = 64
"""How deep an input may nest (objects and lists)."""

MAX_VALUES: Final = 100_000
"""How many values an input may hold in all."""

MAX_FIELD: Final = 4096
"""The longest a call's tool name, ids, working directory or host may be (characters)."""

MAX_USER_REQUEST: Final = 256 * 1024
"""The longest the user's request a call carries may be (characters)."""

_INT64: Final = 1 << 63
_KEY: Final = msgspec.json.Encoder(order="sorted")
_TEXT_FIELDS: Final = (
    ("call_id", MAX_FIELD),
    ("session_id", MAX_FIELD),
    ("agent_id", MAX_FIELD),
    ("cwd", MAX_FIELD),
    ("host", MAX_FIELD),
    ("user_request", MAX_USER_REQUEST),
)


_text_values: Final[Callable[[ToolCall], tuple[object, ...]]] = operator.attrgetter(
    *(field for field, _ in _TEXT_FIELDS)
)
"""The values of a call's `_TEXT_FIELDS`, in their order, read in one C call."""


class Admitted(NamedTuple):
    """
    A call that passed the door.

    Attributes:
        call: The call, with a call id (one is made when it has none).
        key: What identical calls share: the tool, the input as canonical
            JSON, and the working directory.
        known: The entry of the cache under ``key`` whose input was found
            equal to this call's (so it need not be compared again), if any.
    """

    call: ToolCall
    key: tuple[str, bytes, str]
    known: Any = None


def _text_problem(value: str) -> str | None:
    if "\x00" in value:
        return "contains a NUL character"
    if not value.isascii():
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return "is not valid Unicode (it holds a lone surrogate)"
    return None


def _where(path: list[str | int]) -> str:
    shown = "$" + "".join(
        f"[{part}]" if isinstance(part, int) else f".{part}" for part in path[:12]
    )
    return shown + ("…" if len(path) > 12 else "")


def _input_problem(value: Any) -> str | None:
    """What makes ``value`` not an input the gateway accepts, as a clause; ``None`` when it is fine."""
    if not isinstance(value, dict):
        return f"its input must be an object (a dict with string keys), not {type(value).__name__}"
    count = 0
    stack: list[tuple[Any, list[str | int]]] = [(value, [])]
    while stack:
        item, path = stack.pop()
        count += 1
        if count > MAX_VALUES:
            return f"its input holds more than {MAX_VALUES} values"
        if len(path) > MAX_DEPTH:
            return f"its input nests deeper than {MAX_DEPTH} levels (at {_where(path)})"
        if item is None or isinstance(item, bool):
            continue
        if isinstance(item, str):
            problem = _text_problem(item)
            if problem is not None:
                return f"its input holds text that {problem} (at {_where(path)})"
        elif isinstance(item, int):
            if not -_INT64 <= item < _INT64:
                return f"its input holds a whole number too large for the audit log (at {_where(path)})"
        elif isinstance(item, float):
            if item != item or item in (float("inf"), float("-inf")):
                return f"its input holds a number that is not finite (at {_where(path)})"
        elif isinstance(item, dict):
            for key, inner in item.items():
                if not isinstance(key, str):
                    return f"its input has a key that is not a string but {type(key).__name__} (at {_where(path)})"
                problem = _text_problem(key)
                if problem is not None:
                    return f"its input has a key that {problem} (at {_where(path)})"
                stack.append((inner, [*path, key]))
        elif isinstance(item, list | tuple):
            stack.extend((inner, [*path, index]) for index, inner in enumerate(item))
        else:
            return (
                f"its input holds a {type(item).__name__} (at {_where(path)}), which is not JSON-like data "
                "(strings, numbers, booleans, null, lists and objects)"
            )
    return None


def call_problem(call: object) -> str | None:
    """What is wrong with the fields of a call other than its input, as a clause; ``None`` when nothing is."""
    if not isinstance(call, ToolCall):
        return f"it is not a ToolCall but {type(call).__name__}"
    tool: object = call.tool  # a caller may have built it with anything
    if not (type(tool) is str and 0 < len(tool) <= 64 and tool.isprintable()):
        # Past the common case (a short name, checked at C speed): say what is wrong.
        if not isinstance(tool, str):
            return f"its tool name must be a string, not {type(tool).__name__}"
        if not tool:
            return "its tool name is empty"
        if len(tool) > MAX_FIELD:
            return f"its tool name is longer than {MAX_FIELD} characters"
        problem = _text_problem(tool)
        if problem is not None:
            return f"its tool name {problem}"
    for value in _text_values(call):
        if not (value is None or (type(value) is str and len(value) <= 64 and value.isprintable())):
            break
    else:
        return None  # the common case: no text field or short ones, checked at C speed
    for field, longest in _TEXT_FIELDS:
        value = getattr(call, field)
        if value is None or (type(value) is str and len(value) <= 64 and value.isprintable()):
            continue
        if not isinstance(value, str):
            return f"its {field} must be a string or None, not {type(value).__name__}"
        if len(value) > longest:
            return f"its {field} is longer than {longest} characters"
        problem = _text_problem(value)
        if problem is not None:
            return f"its {field} {problem}"
    return None


def admit(call: object, known: dict[tuple[str, bytes, str], Any] | None = None) -> Admitted | str:
    """
    Check a call at the door; the call (with an id) and its cache key, or what is wrong with it.

    ``known`` is the gateway's cache: an input whose key is already there,
    and equal to the input that passed before, is not walked again.
    """
    problem = call_problem(call)
    if problem is not None:
        return problem
    assert isinstance(call, ToolCall)  # noqa: S101 -- call_problem checked it
    try:
        raw = _KEY.encode(call.input)
    except (TypeError, ValueError, OverflowError, RecursionError, UnicodeEncodeError):
        raw = None
    key = None if raw is None else (call.tool, raw, call.cwd or "")
    entry = None if key is None or known is None else known.get(key)
    seen = entry is not None and getattr(entry, "input", None) == call.input
    if not seen:
        problem = _input_problem(call.input)
        if problem is None and raw is None:
            problem = "its input cannot be written as JSON"
        if problem is None and raw is not None and len(raw) > MAX_INPUT_BYTES:
            problem = f"its input is larger than {MAX_INPUT_BYTES} bytes as JSON"
        if problem is not None:
            return problem
    if key is None:  # pragma: no cover - an input that passed encodes
        return "its input cannot be written as JSON"
    if not call.call_id:
        call = msgspec.structs.replace(call, call_id=uuid.uuid4().hex)
    return Admitted(call, key, entry if seen else None)


def refused_call_id(call: object) -> str:
    """The call id of a call the door refused: its own when it has a usable one, else a new one."""
    value = getattr(call, "call_id", None)
    if (
        isinstance(value, str)
        and value
        and len(value) <= MAX_FIELD
        and _text_problem(value) is None
    ):
        return value
    return uuid.uuid4().hex
