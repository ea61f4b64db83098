"""
Notifiers: telling people that a call waits for them, wherever they are.

A notifier is anything with a ``name`` and ``async def notify(notice)``
(a `typing.Protocol`, like approvers and sinks). Plugins register a
factory ``factory(name: str, config: NotifierConfig) -> Notifier`` in the
``gateway.notifiers`` entry-point group; only the notifiers the config
names (``[notifiers.NAME]``) are loaded, at start, and an unknown name or a
factory that fails stops the start with one sentence.

The board calls every notifier when a call starts waiting for a person on
this replica, beside the wait and never in its way: a notifier that fails,
hangs or is slow changes nothing about the call — it waits, is decided and
times out exactly as without it — and a notification still being sent when
the call is decided is dropped.
"""

from __future__ import annotations

from typing import Final, Literal, Protocol, runtime_checkable

import msgspec

from gateway._settings._config import NotifierConfig
from gateway._settings._plugins import NOTIFIER_GROUP as NOTIFIER_GROUP, build_plugin

__all__ = ["NOTIFIER_GROUP", "NOTIFY_TIMEOUT", "Notice", "Notifier", "load_notifier"]


NOTIFY_TIMEOUT: Final = 10.0
"""Seconds one notifier may take to send one notice; past it, the notice is dropped."""


class Notice(msgspec.Struct, frozen=True, kw_only=True):
    """
    A call that started waiting for a person, as notifiers send it.

    Nothing secret is in it: the summary quotes the call as the page shows
    it, with secrets masked.

    Attributes:
        event: Always ``call.waiting``.
        id: The board id (what a decision is posted to).
        call_id: The call.
        kind: ``call``, ``hole`` or ``body``.
        summary: What waits, in one line (the command, shortened).
        tool: The tool the agent wants to run.
        digest: The plan digest a decision must name.
        created: When it started waiting (UTC, ISO 8601).
        deadline: When it is declined if nobody decides.
        link: Where to decide it (the page, showing this call), when known.
        session_id: The agent's session, if it gave one.
        agent_id: The agent, if it gave one.
        host: The agent host (``claude-code``…), if known.
        replica: The replica of a fleet whose review waits for it.
    """

    event: Literal["call.waiting"] = "call.waiting"
    id: str
    call_id: str
    kind: str
    summary: str
    tool: str
    digest: str
    created: str
    deadline: str
    link: str | None = None
    session_id: str | None = None
    agent_id: str | None = None
    host: str | None = None
    replica: str | None = None


@runtime_checkable
class Notifier(Protocol):
    """
    Something that tells people a call waits for them.

    Attributes:
        name: How messages name it (the config's ``[notifiers.NAME]``).

    ``notify`` is called once per waiting call, under `NOTIFY_TIMEOUT`;
    whatever it raises or however long it takes, the call is unaffected.
    """

    name: str

    async def notify(self, notice: Notice) -> None:
        """Send one notice."""


def load_notifier(name: str, config: NotifierConfig) -> Notifier:
    """
    Build the notifier ``config`` names, through its entry point.

    Raises:
        PluginLoadError: No such notifier is installed, its factory failed,
            or what it built is not a notifier.
    """
    built: Notifier = build_plugin(
        NOTIFIER_GROUP,
        config.plugin,
        kind="notifier",
        name=name,
        build=lambda factory: factory(name, config),
        check=Notifier,
    )
    return built
