"""
What the ``gateway`` subcommands print for a person at a terminal, and when.

Data goes out as JSON when ``--json`` is given or standard output is not a
terminal (a pipe, a file, a hook), exactly as it always has, so scripts and
hooks keep reading the same bytes. On a terminal the same values are shown
as a readable view: a tree of statements → commands → program, their
effects and holes, and verdicts with the rule that decided. Colour only on a
terminal, never when ``NO_COLOR`` is set (https://no-color.org) or ``TERM``
is ``dumb``.

Every view is drawn from the JSON value the subcommand would print, so the
two cannot say different things.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final

__all__ = [
    "Style",
    "add_json_argument",
    "plan_view",
    "reading_view",
    "rules_test_view",
    "verdict_view",
    "verify_view",
    "wants_json",
    "write_text",
]

_CODES: Final = {
    "allow": "32",
    "ask": "33",
    "decline": "31",
    "bad": "31",
    "good": "32",
    "dim": "2",
    "bold": "1",
    "write": "35",
    "network": "36",
}
_DECISION_STYLE: Final = {"allow": "allow", "ask": "ask", "decline": "decline", "defer": "ask"}


def add_json_argument(parser: argparse.ArgumentParser) -> None:
    """``--json``: print JSON even on a terminal."""
    parser.add_argument(
        "--json",
        action="store_true",
        help="print JSON even on a terminal (it is always JSON when standard output is not one)",
    )


def wants_json(arguments: argparse.Namespace) -> bool:
    """Whether to print JSON: asked for, or standard output is not a terminal."""
    return bool(getattr(arguments, "json", False)) or not _is_terminal()


def _is_terminal() -> bool:
    isatty = getattr(sys.stdout, "isatty", None)
    return bool(isatty()) if callable(isatty) else False


class Style:
    """ANSI colours when standard output is a terminal and ``NO_COLOR`` is not set; plain text otherwise."""

    def __init__(self, *, colour: bool | None = None) -> None:
        if colour is None:
            colour = (
                _is_terminal()
                and not os.environ.get("NO_COLOR")
                and os.environ.get("TERM") != "dumb"
            )
        self.colour = colour

    def __call__(self, kind: str, text: str) -> str:
        """``text`` in the colour of ``kind`` (``allow``, ``write``, ``dim``…)."""
        code = _CODES.get(kind)
        if not self.colour or code is None:
            return text
        return f"\x1b[{code}m{text}\x1b[0m"

    def decision(self, decision: str) -> str:
        """A decision word, upper-case and coloured."""
        return self(_DECISION_STYLE.get(decision, "bold"), decision.upper())


def write_text(text: str) -> None:
    """Write a view (ending with a newline) to standard output."""
    sys.stdout.write(text if text.endswith("\n") else text + "\n")
    sys.stdout.flush()


# ── values of the plan's JSON ──


def _value(value: Any) -> str:
    """A planned value (``{"plain": "x"}``, ``null`` when it expands) as text."""
    if isinstance(value, Mapping):
        for item in value.values():
            if isinstance(item, str):
                return item
        return "…"
    return "…" if value is None else str(value)


def _path(path: Any) -> str:
    if not isinstance(path, Mapping):
        return "?"
    shown = str(path.get("value") or path.get("written") or "?")
    classes = [str(c) for c in path.get("classes") or () if c != "workspace"]
    return shown + (f" [{', '.join(classes)}]" if classes else "")


def effect_text(effect: Mapping[str, Any], style: Style) -> str:
    """One effect as a line: ``write ./out.txt (via >)``, ``network connect https://x (via curl)``."""
    kind = str(effect.get("effect", "?"))
    words = [kind]
    words.extend(
        str(effect[key])
        for key in ("kind", "action")
        if isinstance(effect.get(key), str) and effect[key] not in ("write", kind)
    )
    if effect.get("path") is not None:
        words.append(_path(effect["path"]))
    for key in ("target", "name", "text"):
        if isinstance(effect.get(key), str):
            words.append(str(effect[key]))
            break
    if effect.get("recursive"):
        words.append("(recursive)")
    via = effect.get("via")
    tail = style("dim", f"  via {via}") if via else ""
    line = " ".join(words)
    if kind in ("write", "execute", "opaque", "bind", "lifetime"):
        return style("write", line) + tail
    if kind == "network":
        return style("network", line) + tail
    return line + tail


def _command_line(command: Mapping[str, Any]) -> str:
    words = [str(command.get("name") or "")] + [_value(a) for a in command.get("args") or ()]
    return " ".join(word for word in words if word) or "(no program)"


def _program(command: Mapping[str, Any]) -> str:
    position = command.get("position") or {}
    program = position.get("program")
    launchers = [str(step.get("basename")) for step in position.get("launchers") or ()]
    if position.get("dynamic_program"):
        name = "a program named at run time"
    elif isinstance(program, Mapping):
        name = str(program.get("name") or program.get("basename"))
    else:
        name = "none"
    through = f" (through {' → '.join(launchers)})" if launchers else ""
    return name + through


def _tree(lines: list[str], depth: int, text: str) -> None:
    """Add ``text`` at ``depth``; its further lines (a heredoc's) indented under it."""
    indent = "  " * depth
    lines.append(indent + text.replace("\n", "\n" + indent + "  │ "))


def _commands(
    lines: list[str], commands: Iterable[Mapping[str, Any]], depth: int, style: Style
) -> None:
    for command in commands:
        context = command.get("context")
        where = style("dim", f"  ({context})") if context and context != "command" else ""
        _tree(lines, depth, f"{style('bold', '$')} {_command_line(command)}{where}")
        _tree(lines, depth + 1, f"program: {_program(command)}")
        position = command.get("position") or {}
        if position.get("reason"):
            _tree(lines, depth + 1, style("ask", f"note: {position['reason']}"))
        for effect in command.get("effects") or ():
            _tree(lines, depth + 1, effect_text(effect, style))
        for nested in command.get("nested") or ():
            via = nested.get("via") or "nested text"
            _tree(lines, depth + 1, f"runs shell text ({via}): {nested.get('status', '?')}")
            for plan in nested.get("plans") or ():
                _commands(lines, plan.get("commands") or (), depth + 2, style)


def plan_view(result: Mapping[str, Any], style: Style) -> str:
    """``gateway plan``'s value as a tree: statements → commands → program, effects; holes."""
    lines: list[str] = []
    status = str(result.get("status"))
    state = style("good" if status == "measured" else "bad", status)
    lines.append(f"{style('bold', 'plan')} {state}  {style('dim', str(result.get('digest', '')))}")
    if result.get("reason"):
        lines.append(style("bad", f"  {result['reason']}"))
    holes: dict[int, list[str]] = {}
    for entry in result.get("expansions") or ():
        blocked = (entry.get("expansion") or {}).get("blocked") or {}
        for hole in blocked.get("holes") or ():
            holes.setdefault(int(entry.get("statement", -1)), []).append(str(hole.get("source")))
    for statement in result.get("statements") or ():
        plan = statement.get("plan") or {}
        index = int(statement.get("index", 0))
        _tree(lines, 1, f"{style('bold', f'statement {index + 1}')}: {plan.get('rendered', '')}")
        _commands(lines, plan.get("commands") or (), 2, style)
        for hole in holes.get(index, ()):
            _tree(
                lines,
                2,
                style("ask", f"hole: {hole} (the heredoc's text depends on what it prints)"),
            )
    effects = result.get("effects") or ()
    lines.append(f"{style('bold', 'effects')} ({len(effects)})")
    lines.extend("  " + effect_text(effect, style) for effect in effects)
    if not effects:
        lines.append(style("dim", "  none"))
    return "\n".join(lines)


def verdict_view(row: Mapping[str, Any], style: Style) -> str:
    """One verdict of ``gateway check``: the decision, the call, the reason, the rule and the approver."""
    decision = str(row.get("decision"))
    head = f"{style.decision(decision)}  {row.get('id') or ''}".rstrip()
    details = [f"rule {row['rule']}" if row.get("rule") else "no rule"]
    if row.get("approver"):
        details.append(f"by {row['approver']}")
    return "\n".join(
        [head, f"  {row.get('reason') or ''}", style("dim", f"  {', '.join(details)}")]
    )


_SKIPPED: Final = frozenset({"span", "parts"})
"""Keys of the syntax tree left out of the readable view (offsets, a word's pieces)."""


def reading_view(reading: Mapping[str, Any], style: Style) -> str:
    """``gateway parse``'s value as an indented tree of nodes (offsets and word pieces left out)."""
    if reading.get("status") != "measured":
        return style("bad", f"{reading.get('status')}: {reading.get('reason')}")
    lines = [style("good", "measured") + " (both shell readers agree)"]

    def walk(value: Any, depth: int, label: str) -> None:
        if isinstance(value, list | tuple):
            for item in value:
                walk(item, depth, label)
            return
        if not isinstance(value, Mapping):
            return
        scalars = [
            f"{key}={item!r}" if key != "text" else repr(item)
            for key, item in value.items()
            if key != "kind"
            and isinstance(item, str | int)
            and not isinstance(item, bool)
            and not (key == "value" and item == value.get("text"))
        ]
        flags = [key for key, item in value.items() if item is True]
        kind = str(value.get("kind") or "")
        _tree(lines, depth, " ".join(part for part in (label, kind, *scalars, *flags) if part))
        for key, item in value.items():
            if key not in _SKIPPED and isinstance(item, Mapping | list | tuple) and item:
                walk(item, depth + 1, style("dim", f"{key}:"))

    walk(reading.get("program"), 0, style("dim", "program:"))
    return "\n".join(lines)


def verify_view(row: Mapping[str, Any], style: Style) -> str:
    """``gateway verify``'s answer for one file: the verdict, then what the log holds."""
    verdict = row.get("verdict")
    if row.get("intact"):
        lines = [f"{style('good', 'intact')}  {row.get('file')}: the hash chain holds."]
    elif row.get("record") is not None:
        lines = [
            f"{style('bad', 'BROKEN')}  {row.get('file')}: record {row.get('record')} "
            f"(seq {row.get('seq')}) breaks the chain: {row.get('reason')}."
        ]
    else:
        lines = [f"{style('bad', 'BROKEN')}  {row.get('file')}: {verdict or row.get('reason')}"]
        verdict = None
    if verdict:
        lines.append(f"        {verdict}")
    if row.get("records") is not None:
        counts = (
            f"{row.get('records')} records, {row.get('sessions')} sessions, "
            f"{row.get('checkpoints')} signed checkpoints, {row.get('recoveries')} recoveries"
        )
        if row.get("key"):
            counts += f", key {row.get('key')}"
        if row.get("witnessed") is not None:
            counts += f", {row.get('witnessed')} witnessed"
        if row.get("kind"):
            counts += f"; problem: {row.get('kind')}"
        if row.get("check"):
            counts += f", found by the {row.get('check')} check"
        lines.append(style("dim", f"        {counts}"))
    return "\n".join(lines)


def rules_test_view(
    results: Sequence[Mapping[str, Any]], summary: Mapping[str, Any], style: Style
) -> str:
    """``gateway rules test``: failures in full, passes counted per source."""
    lines: list[str] = []
    for row in results:
        if row.get("passed"):
            continue
        lines.append(
            f"{style('bad', 'FAIL')}  {row.get('rule')} ({row.get('source')}): "
            f"expected {row.get('expect')} for `{row.get('example')}`"
            + (f" under {row['profile']}" if row.get("profile") else "")
        )
        if row.get("detail"):
            lines.append(style("dim", f"      {row['detail']}"))
    failed = int(summary.get("failed", 0))
    tally = (
        f"{summary.get('rules')} rules, {summary.get('examples')} examples: "
        f"{summary.get('passed')} passed, {failed} failed"
    )
    lines.append(style("bad" if failed else "good", tally))
    return "\n".join(lines)
