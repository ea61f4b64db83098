"""
The approver every adapter test uses: allows ``ls``, declines ``rm -rf ~``, abstains otherwise.

A call it abstains on ends with no approver deciding, so the gateway's verdict
is ``ask``: a person must decide. The directory holding this module also holds
a ``dist-info`` that registers it as the ``script`` approver, so a gateway in
a subprocess (the Claude Code hook) loads it through its entry point exactly
as it would load a real plugin, when this directory and ``tests/`` are on
``PYTHONPATH``. The approver itself is `adapters.scripted.ScriptApprover`.

Options (``[approver.script]``): ``mode = "hang"`` makes every review wait
forever (the gateway's or the hook's timeout must then block the call).
"""

from __future__ import annotations

from typing import Any

from adapters.scripted import ScriptApprover

from gateway import ApproverContext


def factory(options: dict[str, Any], context: ApproverContext) -> ScriptApprover:
    """Build the approver from its ``[approver.script]`` options."""
    return ScriptApprover(hang=options.get("mode") == "hang")
