"""
Reading requests and writing answers: bounded bodies, strict JSON, one-sentence errors.

Every way a request body can be wrong — too big, too slow, not JSON, not
UTF-8, a NUL byte or character, nested too deep, the wrong shape, an unknown
field —
becomes a `BadRequest` with a 4xx status and one sentence, which the app
answers as ``{"error": "…"}``. Nothing a client sends can crash a handler.
"""

from __future__ import annotations

from typing import Any, Final, TypeVar

import anyio
import msgspec
from starlette.requests import Request
from starlette.responses import Response

from gateway.config import validation_path
from gateway.text import error_detail

__all__ = ["BadRequest", "error_response", "json_response", "read_json"]

T = TypeVar("T")

_ENCODER: Final = msgspec.json.Encoder()


class BadRequest(Exception):
    """A request the service refuses; ``message`` is one sentence for the client."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def json_response(value: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    """A JSON response (msgspec-encoded)."""
    return Response(
        _ENCODER.encode(value), status_code=status, media_type="application/json", headers=headers
    )


def error_response(status: int, message: str, headers: dict[str, str] | None = None) -> Response:
    """``{"error": message}`` with ``status``."""
    return json_response({"error": message}, status, headers)


def _validation_sentence(error: msgspec.ValidationError) -> str:
    text, path = validation_path(error)
    where = f" at `{path}`" if path is not None else ""
    text = text.rstrip(".")
    return f"The request body does not fit: {text[:1].lower()}{text[1:]}{where}."


def _has_nul(value: Any) -> bool:
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if "\x00" in item:
                return True
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


async def read_body(request: Request, limit: int, timeout: float = 30.0) -> bytes:  # noqa: ASYNC109 -- the client's deadline, reported in the refusal
    """
    The request body, at most ``limit`` bytes, within ``timeout`` seconds.

    Raises:
        BadRequest: 413 when it is larger, 400 when the length is malformed,
            408 when it does not arrive in time.
    """
    declared = request.headers.get("content-length")
    if declared is not None:
        if not declared.isdigit():
            raise BadRequest(400, "The Content-Length header is not a number.")
        if int(declared) > limit:
            raise BadRequest(413, f"The request body is larger than {limit} bytes.")
    body = bytearray()
    with anyio.move_on_after(timeout) as scope:
        async for chunk in request.stream():
            body += chunk
            if len(body) > limit:
                raise BadRequest(413, f"The request body is larger than {limit} bytes.")
    if scope.cancelled_caught:
        raise BadRequest(408, f"The request body did not arrive within {timeout:g} s.")
    return bytes(body)


async def read_json(request: Request, kind: type[T], limit: int, timeout: float = 30.0) -> T:  # noqa: ASYNC109 -- the client's deadline, reported in the refusal
    """
    Read the body as one JSON object of type ``kind`` (within ``timeout`` seconds).

    Raises:
        BadRequest: With the status and sentence that say what is wrong.
    """
    media = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    if media != "application/json":
        raise BadRequest(415, "Send the body as JSON, with Content-Type: application/json.")
    body = await read_body(request, limit, timeout)
    if not body.strip():
        raise BadRequest(400, "The request body is empty; send a JSON object.")
    if b"\x00" in body:
        raise BadRequest(400, "The request body contains a NUL byte.")
    try:
        body.decode("utf-8", "strict")
    except UnicodeDecodeError as error:
        raise BadRequest(
            400, f"The request body is not valid UTF-8 (byte offset {error.start})."
        ) from None
    try:
        value = msgspec.json.decode(body)
    except msgspec.DecodeError as error:
        detail = error_detail(error)
        raise BadRequest(400, f"The request body is not valid JSON ({detail}).") from None
    except RecursionError:
        raise BadRequest(400, "The request body nests too deeply.") from None
    if not isinstance(value, dict):
        raise BadRequest(400, "The request body must be a JSON object.")
    if _has_nul(value):
        raise BadRequest(400, "The request body contains a NUL character (\\u0000).")
    try:
        return msgspec.convert(value, kind)
    except msgspec.ValidationError as error:
        raise BadRequest(422, _validation_sentence(error)) from None
