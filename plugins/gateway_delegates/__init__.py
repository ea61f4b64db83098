"""
Delegates: approvers that hand a question to something outside the gateway.

Three approvers, each registered in the ``gateway.approvers`` entry-point
group and loaded only when the config names it:

* ``command`` (`gateway_delegates.command`): a program of yours, with the call
  as JSON on its standard input and its answer on standard output;
* ``webhook`` (`gateway_delegates.webhook`): the same document POSTed to a URL,
  signed with HMAC-SHA256 over a timestamp, over verified TLS;
* ``model`` (`gateway_delegates.model`): a language model, through the
  Anthropic Messages API or an OpenAI-compatible chat endpoint, allowed to
  allow only calls whose effects the config lets it allow.

They share one contract (this module): the document they are sent
(`document_of`), the answer they give back (`DelegateAnswer`, read by
`read_answer`) and, for webhooks, the signature (`sign_document`,
`verify_signature`). Every failure — a crash, a timeout, garbage, a refusal —
answers ``decline`` (or ``abstain`` with ``on-failure = "abstain"``), never
``allow``; and a delegate's allow never outranks a rule's decline, wherever
it stands in the chain.

``command`` needs nothing beyond the gateway; ``webhook`` and ``model`` need
``httpx`` (``pip install 'agent-gateway[delegates]'``).
"""

from gateway_delegates._contract import (
    CONTRACT_VERSION as CONTRACT_VERSION,
    DelegateAnswer as DelegateAnswer,
    document_of as document_of,
    encode_document as encode_document,
    read_answer as read_answer,
)
from gateway_delegates._signature import (
    DELIVERY_HEADER as DELIVERY_HEADER,
    SIGNATURE_HEADER as SIGNATURE_HEADER,
    TIMESTAMP_HEADER as TIMESTAMP_HEADER,
    sign_document as sign_document,
    verify_signature as verify_signature,
)

__all__ = [
    "CONTRACT_VERSION",
    "DELIVERY_HEADER",
    "SIGNATURE_HEADER",
    "TIMESTAMP_HEADER",
    "DelegateAnswer",
    "document_of",
    "encode_document",
    "read_answer",
    "sign_document",
    "verify_signature",
]
