"""``check``: the rules on a snapshot or the live machine; ``--against``: the CI drift gate."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from envsnap.commands import completion
from envsnap.commands.common import CONTEXT_SETTINGS, output_options
from envsnap.commands.common import (
    emit_output as _emit,
)
from envsnap.commands.common import (
    print_out as _print_out,
)
from envsnap.commands.common import (
    progress_reporter as _progress_reporter,
)
from envsnap.commands.common import (
    refuse_live_options as _refuse_live_options,
)
from envsnap.commands.common import (
    warn_edited as _warn_edited,
)
from envsnap.commands.common import (
    warn_failed_probes as _warn_failed_probes,
)
from envsnap.errors import ExitCode


@click.command("check", context_settings=CONTEXT_SETTINGS)
@click.argument("snapshot", required=False, metavar="[SNAPSHOT]", shell_complete=completion.files)
@click.option(
    "--fail-on",
    type=click.Choice(["error", "warning", "info", "breaking", "notable", "minor"]),
    default="error",
    help="Exit 1 when a finding of this severity or worse exists (error|warning|info). With --against: "
    "a change of this impact or worse (breaking|notable|minor).  [default: error; with --against: "
    "breaking]",
)
@click.option(
    "--against",
    metavar="KNOWN_GOOD",
    shell_complete=completion.files,
    help="Drift gate: diff the live machine (or SNAPSHOT) against this known-good snapshot instead.",
)
@output_options(markdown="a diagnosis to paste as an issue reply")
@click.option("--strict", is_flag=True, help="Refuse a pasted report that was cut off instead of judging it.")
@click.option(
    "--python", "python_path", metavar="PATH", help="Live mode: probe this interpreter's environment."
)
@click.option(
    "--no-frameworks", is_flag=True, help="Live mode: don't import ML frameworks (faster, fewer checks)."
)
@click.option(
    "--ignore",
    multiple=True,
    metavar="RULE_ID",
    shell_complete=completion.rule_ids,
    help="Leave out the findings of this rule (repeatable), e.g. one accepted on this host.",
)
@click.option(
    "--list-rules", is_flag=True, help="List every rule: id, severities, meaning, fix, source (--json too)."
)
def check_command(
    snapshot: str | None,
    fail_on: str,
    against: str | None,
    fmt: str,
    strict: bool,
    python_path: str | None,
    no_frameworks: bool,
    ignore: tuple[str, ...] = (),
    list_rules: bool = False,
) -> int:
    """What is wrong with this stack, and how to fix it: run every check on a snapshot or the live machine.

    Each finding names its evidence (snapshot paths and values), a concrete fix and the source
    of the rule. Exit 1 when a finding at or above --fail-on exists, 0 otherwise, 2 when the
    snapshot cannot be read.

    \b
    Examples:
      envsnap check                              the live machine
      envsnap check snapshots/gpu01.yaml         a saved (or imported) snapshot
      envsnap check bug-report.txt               any pasted report: collect_env, nvidia-smi, pip list...
      envsnap check issue.txt --format markdown  a diagnosis to paste as an issue reply
      envsnap check --fail-on warning            CI gate: warnings fail too
      envsnap check --json | jq '.findings[].id'
      envsnap check --against known-good.yaml    CI drift gate: exit 1 on any breaking change
      envsnap check --against known-good.yaml --fail-on notable today.yaml
      envsnap check --against golden.yaml fleet/    every node of a fleet folder
      envsnap check --list-rules                 the rules, the ids --ignore takes
    """
    if list_rules:
        return _list_rules(fmt, snapshot=snapshot, against=against, ignore=ignore)
    if against is not None:
        if ignore:
            raise click.UsageError("--ignore leaves out findings; --against compares snapshots instead")
        return _check_against(against, snapshot, fail_on, fmt == "json", python_path, no_frameworks)
    if fail_on not in ("error", "warning", "info"):
        raise click.UsageError(f"--fail-on {fail_on} grades changes: use it with --against KNOWN_GOOD")
    _check_rule_ids(ignore)
    data = _check_target(snapshot, python_path, no_frameworks, strict=strict)
    return _report_findings(data, fail_on, fmt, ignore)


def _list_rules(fmt: str, **unused: object) -> int:
    """``--list-rules``: the catalog (rules/data/rule_catalog.yaml), as a table or JSON."""
    given = [name for name, value in unused.items() if value]
    if given:
        names = ", ".join(name if name == "snapshot" else "--" + name for name in given)
        raise click.UsageError(f"--list-rules lists the rules; it takes no {names}")
    from envsnap.render.rule_list import rule_table, rules_json
    from envsnap.rules.catalog import catalog

    if fmt == "json":
        click.echo(rules_json(catalog()))
    else:
        _print_out(rule_table(catalog()))
    return int(ExitCode.OK)


def _check_rule_ids(ids: tuple[str, ...]) -> None:
    """A misspelt --ignore would silently ignore nothing: refuse ids no rule has."""
    if not ids:
        return
    from envsnap.rules import RULE_IDS

    unknown = sorted(set(ids) - set(RULE_IDS))
    if unknown:
        names = ", ".join(unknown)
        raise click.UsageError(f"--ignore: no rule has the id {names} (ids: `envsnap check --list-rules`)")


def _check_against(
    against: str,
    snapshot: str | None,
    fail_on: str,
    as_json: bool,
    python_path: str | None,
    no_frameworks: bool,
) -> int:
    """Drift gate: diff SNAPSHOT (or the live machine) against KNOWN_GOOD, like ``envsnap diff``.

    Exit 1 when a change at or above ``--fail-on`` exists (default breaking); the rules don't run.
    """
    from envsnap import api
    from envsnap.api import load_checked
    from envsnap.compare.diff import not_compared
    from envsnap.compare.impact import IMPACT_RANK
    from envsnap.render.diff import diff_report
    from envsnap.snapshot.finalize import checked

    source = click.get_current_context().get_parameter_source("fail_on")
    threshold = "breaking" if source == click.core.ParameterSource.DEFAULT else fail_on
    if threshold not in IMPACT_RANK:
        raise click.UsageError(f"--fail-on {fail_on}: with --against, use breaking, notable or minor")
    if snapshot is not None and Path(snapshot).is_dir():  # a fleet folder: every node
        from envsnap.commands.fleet import check_folder

        _refuse_live_options(snapshot, python=python_path, no_frameworks=no_frameworks)
        return check_folder(Path(snapshot), against, threshold, as_json)
    (known,), edited = load_checked([against])  # an unreadable known-good fails before any probing
    data, data_edited = checked(_check_target(snapshot, python_path, no_frameworks))
    _warn_edited([*edited, *([snapshot] if data_edited and snapshot else [])])
    changes = api.diff(known, data)
    host = (data.host.hostname if data.host else None) or "this machine"
    labels = [Path(against).name, Path(snapshot).name if snapshot else f"{host} (live)"]
    fingerprints = [known.fingerprint, data.fingerprint]
    skipped = not_compared(known, data)
    _emit(diff_report(changes, labels, fingerprints, "json" if as_json else "text", skipped))
    failing = [change for change in changes if IMPACT_RANK[change.impact] <= IMPACT_RANK[threshold]]
    if not as_json:  # the verdict in words, so a passing gate is not just a list of changes
        click.echo(_gate_line(len(failing), len(changes), threshold))
    return int(ExitCode.FINDINGS if failing else ExitCode.OK)


def _gate_line(failing: int, total: int, threshold: str) -> str:
    """``gate passed: no change at or above breaking (2 below it)`` or ``gate failed: ...``."""
    level = threshold if threshold == "breaking" else f"{threshold} or above"
    if failing:
        changes = "change" if failing == 1 else "changes"
        return f"gate failed: {failing} {changes} {level} (--fail-on {threshold})"
    below = f" ({total} below it)" if total else ""
    return f"gate passed: no {level} change{below} (--fail-on {threshold})"


def _check_target(
    snapshot: str | None, python_path: str | None, no_frameworks: bool, *, strict: bool = False
) -> Any:
    """The snapshot to check: the file given (secrets redacted), or a fresh probe of this machine."""
    from envsnap import api

    if snapshot is None:
        data = api.collect(
            python=python_path, frameworks=not no_frameworks, progress=_progress_reporter(), findings=False
        )
        _warn_failed_probes(data)
        return data
    _refuse_live_options(snapshot, python=python_path, no_frameworks=no_frameworks)
    from envsnap.commands.reports import announce
    from envsnap.snapshot.redact import redact_snapshot

    return redact_snapshot(
        announce(api.load(snapshot), snapshot, strict=strict)
    )  # a hand-edited file may hold secrets


def _report_findings(data: Any, fail_on: str, fmt: str, ignore: tuple[str, ...] = ()) -> int:
    """Run the rules on ``data``, print the findings, and turn them into the exit code."""
    from envsnap.rules import evaluate
    from envsnap.rules.base import SEVERITY_RANK

    findings = [finding for finding in evaluate(data) if finding.id not in ignore]
    if fmt == "markdown":
        from envsnap.render.findings_markdown import findings_markdown

        click.echo(findings_markdown(findings, data), nl=False)
    elif fmt == "json":
        from envsnap.render.findings import findings_json

        click.echo(findings_json(findings, data.fingerprint))
    else:
        from envsnap.render.findings import render_findings

        _print_out(render_findings(findings, data.fingerprint))
    failing = any(SEVERITY_RANK[f.severity] <= SEVERITY_RANK[fail_on] for f in findings)
    return int(ExitCode.FINDINGS if failing else ExitCode.OK)
