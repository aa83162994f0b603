"""``save``, ``show`` and ``import``: make snapshots and read them back."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from envsnap.commands import completion
from envsnap.commands.common import (
    CONTEXT_SETTINGS,
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
    stderr_console as _stderr_console,
)
from envsnap.commands.common import (
    warn_failed_probes as _warn_failed_probes,
)
from envsnap.errors import ExitCode


@click.command("save", context_settings=CONTEXT_SETTINGS)
@click.option(
    "-o",
    "--output",
    metavar="PATH|-",
    help="Where to write the YAML ('-' for stdout). Default: snapshots/<host>-<UTC time>.yaml.",
)
@click.option(
    "--python",
    "python_path",
    metavar="PATH",
    help="Probe this interpreter's environment instead of envsnap's own (e.g. .venv/bin/python).",
)
@click.option("--anonymize", is_flag=True, help="Mask hostname, usernames in paths, serials and GPU UUIDs.")
@click.option("--no-frameworks", is_flag=True, help="Don't import ML frameworks in the target (faster).")
@click.option(
    "--no-cache", is_flag=True, help="Import the frameworks again even if nothing they depend on changed."
)
@click.option(
    "--timeout-scale",
    type=click.FloatRange(min=0.1),
    default=1.0,
    show_default=True,
    help="Multiply every probe's deadline (slow file systems, cold caches).",
)
def save_command(
    output: str | None,
    python_path: str | None,
    anonymize: bool,
    no_frameworks: bool,
    no_cache: bool,
    timeout_scale: float,
) -> int:
    """Record this machine's stack as a reproducible YAML snapshot.

    Prints the written path on stdout and a one-line summary on stderr. Secrets in
    environment variables and URLs are always redacted.

    \b
    Examples:
      envsnap save
      envsnap save -o known-good.yaml --anonymize
      envsnap save --python ~/venvs/train/bin/python -o train-env.yaml
      envsnap save -o - | less
    """
    from envsnap import api
    from envsnap.render.summary import one_line_summary
    from envsnap.snapshot import files, store

    if output is not None and output != "-":
        files.check_writable(Path(output))  # fail now, not after a minute of probing
    snapshot = api.collect(
        python=python_path,
        frameworks=not no_frameworks,
        anonymize=anonymize,
        timeout_scale=timeout_scale,
        progress=_progress_reporter(),
        findings=True,
        cache=not no_cache,
    )
    if output == "-":
        sys.stdout.write(store.dumps(snapshot))
    else:
        click.echo(str(api.save(snapshot, output)))  # default: a new file in snapshots/, never replaced
    _stderr_console().print(one_line_summary(snapshot), soft_wrap=True)
    return int(ExitCode.OK)


@click.command("show", context_settings=CONTEXT_SETTINGS)
@click.argument("snapshot", required=False, metavar="[SNAPSHOT]", shell_complete=completion.files)
@click.option("--json", "as_json", is_flag=True, help="Print the whole snapshot as JSON on stdout.")
@click.option(
    "--python", "python_path", metavar="PATH", help="Live mode: probe this interpreter's environment."
)
@click.option("--no-frameworks", is_flag=True, help="Live mode: don't import ML frameworks (faster).")
@click.option(
    "--no-cache",
    is_flag=True,
    help="Live mode: import the frameworks again even if nothing they depend on changed.",
)
def show_command(
    snapshot: str | None, as_json: bool, python_path: str | None, no_frameworks: bool, no_cache: bool
) -> int:
    """Summarize a saved snapshot, or the live machine when no file is given.

    \b
    Examples:
      envsnap show                        the live machine
      envsnap show snapshots/gpu01.yaml   a saved snapshot
      envsnap show --json | jq .frameworks.torch
    """
    from envsnap import api
    from envsnap.snapshot.redact import redact_snapshot

    if snapshot is None:
        data = api.collect(
            python=python_path,
            frameworks=not no_frameworks,
            progress=_progress_reporter(),
            findings=True,
            cache=not no_cache,
        )
        _warn_failed_probes(data)
    else:
        _refuse_live_options(snapshot, python=python_path, no_frameworks=no_frameworks)
        from envsnap.commands.reports import announce

        data = redact_snapshot(announce(api.load(snapshot), snapshot))  # a hand-edited file may hold secrets
    if as_json:
        from envsnap.snapshot.json_text import to_json

        click.echo(to_json(data))
    else:
        from envsnap.render.summary import render_summary

        _print_out(render_summary(data))
    return int(ExitCode.OK)


@click.command("import", context_settings=CONTEXT_SETTINGS)
@click.argument("kind", type=click.Choice(["auto", "collect-env", "pip-freeze", "nvidia-smi-xml"]))
@click.argument("file", metavar="FILE|-", shell_complete=completion.files)
@click.option("-o", "--output", metavar="PATH", help="Write the snapshot here instead of stdout.")
@click.option("--allow-partial", is_flag=True, help="collect-env: import a report that was cut off.")
@click.option("--strict", is_flag=True, help="auto: refuse a report that was cut off.")
def import_command(kind: str, file: str, output: str | None, allow_partial: bool, strict: bool) -> int:
    """Turn a report people already paste into a snapshot the checks and diff can judge.

    KIND is auto (any mix of collect_env, vLLM's collect_env, nvidia-smi table/-q/-L/-q -x,
    rocm-smi, amd-smi, pip list, pip freeze, conda list and torch's warnings, detected and merged;
    a cut-off report is imported as partial with a warning), collect-env (the output of
    `python -m torch.utils.collect_env`), pip-freeze, or nvidia-smi-xml (`nvidia-smi -q -x`).
    FILE '-' reads standard input. The snapshot records that
    it was imported and from what; fields the report lacks are left out, never guessed. The
    checks run on it: their counts go to stderr, the findings themselves into the snapshot
    (`envsnap check IMPORTED.yaml` shows them in full).

    \b
    Examples:
      envsnap import auto issue-comment.txt -o reporter.yaml
      envsnap import collect-env bug-report.txt -o reporter.yaml && envsnap check reporter.yaml
      pip freeze | envsnap import pip-freeze - -o frozen.yaml
      nvidia-smi -q -x | envsnap import nvidia-smi-xml - > gpus.yaml
    """
    from envsnap import api
    from envsnap.importers import parse_report, read_report
    from envsnap.snapshot import store
    from envsnap.snapshot.finalize import finalize, utc_now

    text, name = read_report(file)
    snapshot = parse_report(kind, text, name, captured_at=utc_now(), allow_partial=allow_partial)  # type: ignore[arg-type]
    if kind == "auto":
        from envsnap.commands.reports import announce

        announce(snapshot, file, strict=strict)
    snapshot = api.with_findings(finalize(snapshot))
    if output:
        store.save(snapshot, Path(output))
        click.echo(output)
    else:
        sys.stdout.write(store.dumps(snapshot))
    counts: dict[str, int] = {}
    for finding in snapshot.findings or ():
        counts[finding.severity] = counts.get(finding.severity, 0) + 1
    summary = ", ".join(f"{n} {sev}" for sev, n in counts.items()) or "no findings"
    click.echo(f"imported {kind} from {name}: {summary}", err=True)
    return int(ExitCode.OK)
