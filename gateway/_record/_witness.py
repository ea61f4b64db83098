"""
Witnesses: somewhere outside the audit log that keeps a copy of every signed checkpoint.

A signed chain proves that nobody without the key rewrote what it covers, but
not that nobody cut its end off: a log truncated right after an earlier
checkpoint still verifies. A witness closes that gap. The gateway hands it
the chain's ``chain.genesis`` and every ``chain.checkpoint`` as they are
published, and ``gateway verify --witness`` checks that the log still holds
each one the witness has.

A witness is built from its `WitnessConfig` by the factory its plugin
registers in the ``gateway.witnesses`` entry-point group (``file`` and
``webhook`` are first-party; a broker stream is a plugin like any other).
`Witness.attest` is called once per record, in order, under the audit
timeout; a witness that fails or is slow never delays a verdict — its failure
is recorded as a ``witness.failed`` event instead.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from gateway._calls._events import ChainCheckpoint, ChainGenesis
from gateway._settings._config import WitnessConfig
from gateway._settings._plugins import WITNESS_GROUP as WITNESS_GROUP, build_plugin

__all__ = ["WITNESS_GROUP", "Witness", "load_witness"]


@runtime_checkable
class Witness(Protocol):
    """
    Keeps a copy of a chain's genesis and checkpoints, away from the log.

    ``attest`` returns once the record is safely kept (written and flushed,
    or acknowledged by the remote end). ``aclose`` is called once at the end.
    Optional: ``shares_loop: bool``, as for sinks (without it, the witness
    runs on an event loop of its own in a thread of its own).
    """

    async def attest(self, record: ChainGenesis | ChainCheckpoint) -> None:
        """Keep one genesis or checkpoint record."""

    async def aclose(self) -> None:
        """Flush and close."""


def load_witness(name: str, config: WitnessConfig) -> Witness:
    """
    Build the witness ``config`` names, through its entry point.

    Raises:
        PluginLoadError: No such witness is installed, or its factory failed.
    """
    built: Witness = build_plugin(
        WITNESS_GROUP,
        config.plugin,
        kind="witness",
        name=name,
        build=lambda factory: factory(config),
        check=Witness,
    )
    return built
