"""
The user's request as approvers may see it: every secret masked, in a worker, the last ones kept.

A call may carry the request its user made (``ToolCall.user_request``);
approvers see it only masked — the secrets found in the call itself as well
as those that look like secrets (`gateway._review._reading.mask_request`).
The masking runs in a bounded worker, once for each request and set of known
secrets; a request that cannot be masked in time is left out rather than
shown.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Final

from gateway._review._admission import worker_timeout
from gateway._review._reading import MaskText, mask_request
from gateway._work._bounded import BoundedFailure, BoundedPool

__all__ = ["RequestMasks"]

_KEPT: Final = 256
"""Masked requests kept, the least recently used forgotten first."""


class RequestMasks:
    """
    The masked requests of a gateway, made in its workers.

    Args:
        pool: The workers that mask.
        plan_timeout: The most one masking may take (``[gateway] plan-timeout``).
    """

    def __init__(self, pool: BoundedPool, plan_timeout: float) -> None:
        self._pool = pool
        self._plan_timeout = plan_timeout
        self._masked: OrderedDict[tuple[str, tuple[tuple[str, str], ...]], str] = OrderedDict()

    def get(self, text: str, known: tuple[tuple[str, str], ...]) -> str | None:
        """The request already masked with these known secrets, if it is kept (nothing is masked)."""
        return self._masked.get((text, known))

    async def mask(
        self, text: str | None, known: tuple[tuple[str, str], ...], deadline: float
    ) -> str | None:
        """
        The user's request as approvers may see it: every secret masked (in a worker, cached).

        A request that cannot be masked in time is left out rather than shown.
        """
        if text is None:
            return None
        key = (text, known)
        masked = self._masked.get(key)
        if masked is not None:
            self._masked.move_to_end(key)
            return masked
        result = await self._pool.run(
            mask_request,
            MaskText(text=text, known=known),
            timeout=worker_timeout(self._plan_timeout, deadline),
        )
        if isinstance(result, BoundedFailure):
            return None
        self._masked[key] = result
        while len(self._masked) > _KEPT:
            self._masked.popitem(last=False)
        return result
