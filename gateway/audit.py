"""
The audit log, for those who write, continue or check one: formats, tails, verification, keys, witnesses.

A namespace of the public API (like ``trio.lowlevel``): a sink plugin, a
witness plugin or an auditor's script imports from here; an agent host does
not need it.

Examples:
    >>> from gateway.audit import audit_format
    >>> audit_format("gateway-audit.msgpack")
    'msgpack'
"""

from gateway._record._auditlog import (
    TAIL_WINDOW as TAIL_WINDOW,
    AuditReport as AuditReport,
    LogTail as LogTail,
    Record as Record,
    audit_format as audit_format,
    check_audit_log as check_audit_log,
    encode_event as encode_event,
    ended_cleanly as ended_cleanly,
    iter_records as iter_records,
    lock_path as lock_path,
    log_writer as log_writer,
    read_audit_log as read_audit_log,
    read_tail as read_tail,
    verify_audit_log as verify_audit_log,
)
from gateway._record._signing import (
    Signer as Signer,
    Verifier as Verifier,
    generate_key as generate_key,
    load_signer as load_signer,
    load_verifier as load_verifier,
)
from gateway._record._sinks import (
    AuditSource as AuditSource,
    ChainTip as ChainTip,
    Recovery as Recovery,
)
from gateway._record._witness import Witness as Witness

__all__ = [
    "TAIL_WINDOW",
    "AuditReport",
    "AuditSource",
    "ChainTip",
    "LogTail",
    "Record",
    "Recovery",
    "Signer",
    "Verifier",
    "Witness",
    "audit_format",
    "check_audit_log",
    "encode_event",
    "ended_cleanly",
    "generate_key",
    "iter_records",
    "load_signer",
    "load_verifier",
    "lock_path",
    "log_writer",
    "read_audit_log",
    "read_tail",
    "verify_audit_log",
]
