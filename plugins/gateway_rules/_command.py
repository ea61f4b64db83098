"""``gateway rules test [FILE]``: run every rule's match / not-match examples."""

from __future__ import annotations

import argparse

from gateway.cli import (
    CommandError,
    Style,
    Subcommand,
    add_json_argument,
    rules_test_view,
    wants_json,
    write_json,
    write_text,
)

__all__ = ["RULES"]


def _configure(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    test = actions.add_parser("test", help="run the examples of the default policy and of FILE")
    test.add_argument("file", nargs="?", metavar="FILE", help="a rule file ([[rule]] tables)")
    test.add_argument("--no-default", action="store_true", help="leave the default policy out")
    test.add_argument(
        "--config",
        metavar="CONFIG",
        help="a gateway config whose [programs.NAME] option tables the examples are planned with",
    )
    add_json_argument(test)


def _run(arguments: argparse.Namespace) -> int:
    from gateway import ConfigError, load_config
    from gateway_rules import RulesOptions, check_examples, load_rules

    options = RulesOptions(
        include_default=not arguments.no_default, files=(arguments.file,) if arguments.file else ()
    )
    try:
        sources, _ = load_rules(options)
        programs = load_config(arguments.config).programs if arguments.config else {}
    except (ValueError, ConfigError) as error:
        raise CommandError(str(error)) from None
    # Every example is judged by the whole policy, under every profile the
    # rule is in force in: an allow rule that loses to a stricter one fails.
    results = check_examples(sources, programs=programs)
    rows = [
        {
            "rule": result.rule,
            "source": result.source,
            "expect": result.expect,
            "example": result.example,
            "passed": result.passed,
            "profile": result.profile,
            **({"detail": result.detail} if result.detail else {}),
        }
        for result in results
    ]
    failed = sum(not result.passed for result in results)
    summary = {
        "rules": len(sources),
        "examples": len(results),
        "passed": len(results) - failed,
        "failed": failed,
    }
    if wants_json(arguments):
        for row in [*rows, summary]:
            write_json(row)
    else:
        write_text(rules_test_view(rows, summary, Style()))
    return 1 if failed else 0


RULES = Subcommand(
    name="rules",
    help="Work with rule files: `gateway rules test [FILE]` runs their examples.",
    configure=_configure,
    run=_run,
)
"""``gateway rules``, contributed through the ``gateway.commands`` entry-point group."""
