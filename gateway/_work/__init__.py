"""
Work the gateway runs apart: bounded workers and isolated loops.

`_bounded` runs pure work on agent text in warm worker processes under a
hard deadline (the reading of each call runs there); `_isolation` gives a
plugin that might block an event loop of its own. Leaves: beside the
vocabulary at the bottom, used by the reading and the orchestrator.

Its place: not a stage in the order of a review (calls → read → plan →
programs → review → decide → record → observe → serve); the reading of each
call runs in its workers. In the import order it is layer 1 of 11, and it
imports no other part of the gateway (`[tool.importlinter]` in
pyproject.toml holds the layers; docs/design.md draws them).
"""
