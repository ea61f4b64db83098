"""
The approval service: a live page where people see plans and decide, and the API behind it.

Installed with the ``web`` extra (Starlette and uvicorn). ``gateway serve``
runs it; `open_service` runs it from Python (tests, embedding). It serves:

* ``POST /v1/review`` and ``POST /hooks/claude-code``: a call in, a verdict
  out, waiting for a person when the approver chain leaves it to one;
* ``GET /v1/events``: every gateway event as Server-Sent Events, resumable
  from a sequence number;
* ``GET /v1/calls``, ``GET /v1/calls/{id}``, ``POST /v1/calls/{id}/decision``:
  what waits for a person, and deciding it (bound to the plan digest, once);
* ``GET /v1/history``: the kept decisions (who decided, when, with what note),
  searchable, filterable and paginated, behind the token;
* ``GET /v1/audit``: the audit log, read-only;
* ``/``: the page (static HTML and plain JavaScript, no build step).

Access: loopback only by default; other origins refused; a bearer token for
every POST (and for reads, with ``[serve] protect-reads``). This package
imports only the gateway's public API and the ``human`` approver's board.
"""

from __future__ import annotations

from gateway_web._app import DecisionBody, EventStream, create_app
from gateway_web._server import RunningService, audit_path_of, open_service
from gateway_web._service import ApprovalService, CallEntry
from gateway_web._token import new_token, remove_token, store_token

__all__ = [
    "ApprovalService",
    "CallEntry",
    "DecisionBody",
    "EventStream",
    "RunningService",
    "audit_path_of",
    "create_app",
    "new_token",
    "open_service",
    "remove_token",
    "store_token",
]
