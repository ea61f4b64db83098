"""
The review of one call up to the approvers: the door, admission, the one reading.

`_intake` declines a malformed call with one sentence; `_admission` says
whether a new call can be read in time; `_reading` reads a call once, in a
bounded worker, into a `CallAnalysis` (`_analysis`), and nothing after it
reads shell text; `_summary` says its effects in one sentence;
`_masking` masks the user's request approvers see; `_boundary` resolves
the confinement a verdict may carry, `_confining` applies it to one call's
allow, and `_bwrap` turns it into the kernel's boundary for a confined run.

Its place: fifth in the order of a review (calls → read → plan → programs →
review → decide → record → observe → serve). In the import order it is layer
6 of 11, and it may import only `_calls/`, `_work/`, `_read/`, `_programs/`,
`_plan/`, `_settings/` (`[tool.importlinter]` in pyproject.toml holds the
layers; docs/design.md draws them).
"""
