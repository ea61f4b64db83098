"""
The text a remembered approval shows a person: what the call was, to tell approvals apart in a list.

It decides nothing: the approval's plan digest, program and prefix are what
a later call is matched on.
"""

from __future__ import annotations

from gateway import ReviewRequest
from gateway.text import shorten

__all__ = ["command_shown"]


def command_shown(request: ReviewRequest, limit: int = 200) -> str:
    """The command of a request as a person saw it (secrets masked), on one line, shortened."""
    text = request.plan.source if request.plan is not None else request.call.tool
    return shorten(text, limit)
