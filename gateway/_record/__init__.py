"""
The record: what a review leaves behind, durably.

The bus publishes every event to the sinks (`_bus`, `_sinks`); the audit
log is one signed hash chain (`_auditlog`, `_signing`) that witnesses
vouch for (`_witness`); notifiers tell people a call waits for them
(`_notifiers`). A verdict is released only once the required sinks hold it.

Its place: seventh in the order of a review (calls → read → plan → programs
→ review → decide → record → observe → serve). In the import order it is
layer 8 of 11, and it may import only `_calls/`, `_work/`, `_read/`,
`_programs/`, `_plan/`, `_settings/`, `_review/`, `_observe/`
(`[tool.importlinter]` in pyproject.toml holds the layers; docs/design.md
draws them).
"""
