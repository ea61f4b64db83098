"""
The ``webhook`` approver: a web service of yours decides, with the call POSTed as signed JSON.

Registered in the ``gateway.approvers`` entry-point group as ``webhook``.
For each question it POSTs the delegate document (see
`gateway_delegates.document_of`) to ``url`` and reads the same answer the
``command`` approver reads: ``{"decision": "allow" | "decline" | "abstain",
"reason": "…"}`` in a ``200`` response.

The request is signed (`gateway_delegates.sign_document`: HMAC-SHA256 over a
timestamp, a delivery id and the body, keyed with the secret in the
environment variable ``secret-env``), sent over TLS that is always verified
(against ``ca-file`` alone when it is given), never redirected and never
through a proxy from the environment. Retries are bounded (``retries``) and
only for an unreachable server, a timeout, 429 or 5xx; a retry carries the
same delivery id. Any other status, a body past ``max-response``, anything
but one answer object: one sentence, and a decline (or an abstain, with
``on-failure = "abstain"``). Never an allow.

Options (``[approver.webhook]``)::

    [approver.webhook]
    url = "https://review.example.com/gateway"   # required; https only
    secret-env = "GATEWAY_WEBHOOK_SECRET"        # the variable holding the HMAC key
    timeout = 10           # seconds per attempt
    retries = 1            # attempts after the first (at most 5)
    ca-file = "/etc/ssl/my-ca.pem"  # trust only this CA bundle (default: the system's)
    max-response = 65536   # bytes of answer
    max-document = 4194304 # bytes of document; a larger call fails
    concurrency = 4        # requests at once
    on-failure = "decline" # or "abstain"

The key must be set when the gateway starts (at least 32 bytes: ``openssl
rand -hex 32``); without it the gateway does not start.
"""

from __future__ import annotations

import os
import time
import uuid
from collections.abc import Mapping
from typing import Annotated, Any, Final

import msgspec

from gateway import Answer, ApproverContext, ReviewRequest
from gateway_delegates._contract import (
    DelegateAnswer,
    DelegateOptions,
    Failure,
    OnFailure,
    Seconds,
    Size,
    answer_from,
    decode_options,
    document_of,
    encode_document,
    failed,
    read_answer,
    too_large,
)
from gateway_delegates._http import Reply, check_url, make_client, post, time_needed
from gateway_delegates._signature import sign_document

__all__ = ["WebhookApprover", "WebhookOptions"]

KEY_BYTES: Final = 32
"""The shortest signing key accepted, in bytes."""
_TABLE: Final = "approver.webhook"


class WebhookOptions(
    DelegateOptions, frozen=True, kw_only=True, forbid_unknown_fields=True, rename="kebab"
):
    """
    The ``[approver.webhook]`` table.

    Attributes:
        url: Where the document is POSTed (``https``).
        secret_env: The environment variable holding the signing key.
        timeout: Seconds one attempt may take, connecting and reading included.
        retries: Attempts after the first, for failures a retry can fix.
        ca_file: A PEM bundle of the only certificate authorities to trust.
        max_response: Bytes the response body may have.
    """

    url: str
    secret_env: str = "GATEWAY_WEBHOOK_SECRET"  # noqa: S105 -- a variable's name, not a secret
    timeout: Seconds = 10.0
    retries: Annotated[int, msgspec.Meta(ge=0, le=5)] = 1
    ca_file: str | None = None
    max_response: Size = 65_536


class WebhookApprover:
    """
    POSTs each question to a web service; its answer, or a failure that is never an allow.

    Args:
        options: The ``[approver.webhook]`` table.
        context: The gateway's context (unused: the webhook needs nothing shared).

    Raises:
        ValueError: The options are invalid, the URL is not https, or the
            signing key is missing or short.

    Attributes:
        name: ``webhook``.
        role: ``delegate``: its allow never outranks a rule's decline.
        timeout: What the gateway allows it: every attempt, the pauses
            between them, and a grace.
        options: The parsed options.
    """

    name = "webhook"
    role: Final = "delegate"

    def __init__(self, options: Mapping[str, Any], context: ApproverContext) -> None:
        self.options = decode_options(dict(options), WebhookOptions, _TABLE)
        host = check_url(self.options.url, _TABLE, plain_loopback=False)
        self._who = f"the webhook at {host}"
        key = os.environ.get(self.options.secret_env, "")
        if len(key.encode()) < KEY_BYTES:
            state = "is not set" if not key else f"holds fewer than {KEY_BYTES} bytes"
            raise ValueError(
                f"The `webhook` approver's signing key ${self.options.secret_env} {state}; "
                "set it to a long random secret shared with the receiver (openssl rand -hex 32)."
            )
        self._key = key.encode()
        self._client = make_client(self.options.ca_file, self.options.concurrency, _TABLE)
        self.timeout = time_needed(self.options.timeout, self.options.retries)

    async def review(self, request: ReviewRequest) -> Answer:
        """POST this question and answer what the service said (or why it said nothing usable)."""
        outcome = await self.ask(encode_document(document_of(request)))
        return answer_from(outcome, self.options.on_failure)

    async def ask(self, document: bytes) -> DelegateAnswer | Failure:
        """The service's answer to a document, or the failure that says why there is none."""
        on_failure = self.options.on_failure
        oversized = too_large(document, self.options.max_document, self._who, on_failure)
        if oversized is not None:
            return oversized
        delivery = uuid.uuid4().hex

        def headers() -> dict[str, str]:
            signed = sign_document(
                self._key, document, timestamp=int(time.time()), delivery=delivery
            )
            return {"Content-Type": "application/json", **signed}

        # The client's pool holds at most `concurrency` connections; waiting
        # for one counts against the attempt's time.
        reply = await post(
            self._client,
            self.options.url,
            document,
            headers,
            seconds=self.options.timeout,
            retries=self.options.retries,
            limit=self.options.max_response,
            who=self._who,
            on_failure=on_failure,
        )
        if isinstance(reply, Failure):
            return reply
        return _read(reply, self._who, on_failure)

    async def aclose(self) -> None:
        """Close the connections."""
        await self._client.aclose()


def _read(reply: Reply, who: str, on_failure: OnFailure) -> DelegateAnswer | Failure:
    if reply.status != 200:
        return failed("status", on_failure, who=who, status=reply.status)
    return read_answer(reply.body, who, on_failure)
