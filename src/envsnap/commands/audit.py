"""``audit``: will this project and environment run on another target, and what has to change?"""

from __future__ import annotations

import os
from typing import Any

import click

from envsnap.commands.common import CONTEXT_SETTINGS, output_options
from envsnap.commands.common import emit_output as _emit
from envsnap.commands.common import print_out as _print_out
from envsnap.commands.common import progress_reporter as _progress_reporter
from envsnap.commands.common import refuse_live_options as _refuse_live_options
from envsnap.commands.common import warn_failed_probes as _warn_failed_probes
from envsnap.errors import BadInput, ExitCode

FAIL_ON = {
    "higher": "higher",
    "high": "higher",
    "moderate": "moderate",
    "medium": "moderate",
    "lower": "lower",
    "low": "lower",
}


@click.command("audit", context_settings=CONTEXT_SETTINGS)
@click.argument("project_dir", required=False, default=".", metavar="[PROJECT_DIR]")
@click.option(
    "--target",
    "target_spec",
    metavar="TARGET",
    help="rocm[:gfxNNN][@VER], xpu[:DEVICE], mps, cpu or cuda:sm_XY[@VER].",
)
@click.option(
    "--target-snapshot",
    metavar="FILE",
    help="A snapshot saved on the target machine: judge against its real devices and framework.",
)
@click.option(
    "--snapshot",
    "snapshot_path",
    metavar="FILE",
    help="The source environment as a saved snapshot (default: probe this machine).",
)
@click.option(
    "--python", "python_path", metavar="PATH", help="Probe this interpreter's environment as the source."
)
@click.option(
    "--no-frameworks",
    is_flag=True,
    help="Live mode: don't import ML frameworks (faster; no framework layer).",
)
@click.option("--no-env", is_flag=True, help="Audit the project files only, not an environment.")
@output_options(markdown="a migration ticket (JSON keys: docs/usage/audit.md)")
@click.option(
    "--fail-on",
    type=click.Choice(sorted(FAIL_ON)),
    default="higher",
    show_default=True,
    help="Exit 1 when the verdict is at or above this risk.",
)
@click.option("--show-fine", is_flag=True, help="Text output: also list the findings that need no change.")
@click.option(
    "--top",
    type=click.IntRange(1, 1000),
    default=10,
    show_default=True,
    help="Rows per roll-up table (components, kinds of blocker), shown before the details.",
)
@click.option(
    "--exclude",
    "excludes",
    multiple=True,
    metavar="GLOB",
    help="Leave out paths matching GLOB (a path or folder name; repeatable), e.g. --exclude 'third_party'.",
)
@click.option(
    "--no-cache",
    is_flag=True,
    help="Parse every file again, ignoring and not updating the per-file results kept from the last "
    "audit of this tree (they are reused only while a file and envsnap are unchanged).",
)
@click.option(
    "--include-tests",
    is_flag=True,
    help="Count tests, examples, benchmarks, docs, scratch and vendored code in the verdict "
    "(they are listed either way).",
)
def audit_command(
    project_dir: str,
    target_spec: str | None,
    target_snapshot: str | None,
    snapshot_path: str | None,
    python_path: str | None,
    no_frameworks: bool,
    no_env: bool,
    fmt: str,
    fail_on: str,
    show_fine: bool,
    top: int,
    excludes: tuple[str, ...],
    no_cache: bool,
    include_tests: bool,
) -> int:
    """Before you migrate: audit a project and its environment for another accelerator.

    Scans Python sources (syntax trees), C++/CUDA sources, build files, Dockerfiles and model
    files under PROJECT_DIR, plus the environment's framework build, packages and compiled
    extensions, and judges each for the target: file:line, what it means there, effort
    (none/low/medium/high) and the replacement. Ends with a verdict (lower/moderate/higher
    risk) and a checklist. Exit 1 when the verdict is at or above --fail-on, 2 on bad input.

    \b
    Examples:
      envsnap audit . --target rocm:gfx942
      envsnap audit . --target xpu --top 5 --exclude third_party --exclude 'csrc/legacy/*'
      envsnap audit ~/src/model --target xpu --snapshot train-env.yaml
      envsnap audit --target cuda:sm_120@12.8 --format markdown > MIGRATION.md
      envsnap audit --target-snapshot mi300x-node.yaml --json | jq .verdict
    """
    from envsnap.audit import audit, parse_target, scan_tree, target_from_snapshot

    if (target_spec is None) == (target_snapshot is None):
        from envsnap.audit.target import EXAMPLES, FORMS

        raise BadInput(f"give exactly one of --target ({FORMS}; e.g. {EXAMPLES}) or --target-snapshot FILE")
    if snapshot_path is not None:
        _refuse_live_options(snapshot_path, python=python_path, no_frameworks=no_frameworks)
    if no_env and (snapshot_path or python_path):
        raise click.UsageError("--no-env audits the files only: drop --snapshot/--python")
    if python_path is not None:
        from envsnap import api  # the environment's reader: not loaded for a files-only audit

        api.check_interpreter(python_path)
    target = parse_target(target_spec) if target_spec is not None else None
    if target is None:
        assert target_snapshot is not None
        target = target_from_snapshot(_load(target_snapshot), target_snapshot)
    if not os.path.isdir(project_dir):
        raise BadInput(f"{project_dir}: not a directory (give the project's folder)")
    # The scan runs before any probe thread starts: the parsing pool forks a single-threaded process.
    scan = scan_tree(project_dir, exclude=excludes, cache=not no_cache)
    snapshot, label = _environment(snapshot_path, python_path, no_frameworks, no_env)
    report = audit(scan, snapshot, target, environment_label=label, include_tests=include_tests, top=top)
    _print_report(report, fmt, show_fine, top)
    from envsnap.audit.model import RISKS

    failing = RISKS.index(report.verdict.risk) >= RISKS.index(FAIL_ON[fail_on])
    return int(ExitCode.FINDINGS if failing else ExitCode.OK)


def _load(path: str) -> Any:
    from envsnap import api
    from envsnap.snapshot.redact import redact_snapshot

    return redact_snapshot(api.load(path))  # a hand-edited file may hold secrets


def _environment(
    snapshot_path: str | None, python_path: str | None, no_frameworks: bool, no_env: bool
) -> tuple[Any, str | None]:
    if no_env:
        return None, None
    if snapshot_path is not None:
        return _load(snapshot_path), snapshot_path
    from envsnap import api

    data = api.collect(
        python=python_path, frameworks=not no_frameworks, progress=_progress_reporter(), findings=False
    )
    _warn_failed_probes(data)
    return data, f"live ({python_path})" if python_path else "live (this interpreter)"


def _print_report(report: Any, output_format: str, show_fine: bool, top: int) -> None:
    if output_format == "json":
        from envsnap.render.audit_json import audit_json

        click.echo(audit_json(report))
    elif output_format == "markdown":
        from envsnap.render.audit import audit_markdown

        _emit(audit_markdown(report))
    else:
        from envsnap.render.audit import render_audit

        _print_out(render_audit(report, show_fine=show_fine, top=top))
