"""``report``: the environment block to paste into a bug report (Markdown or plain text)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from envsnap.commands import completion
from envsnap.commands.common import (
    CONTEXT_SETTINGS,
    progress_reporter,
    refuse_live_options,
    warn_edited,
    warn_failed_probes,
)
from envsnap.errors import ExitCode


@click.command("report", context_settings=CONTEXT_SETTINGS)
@click.argument("snapshot", required=False, metavar="[SNAPSHOT]", shell_complete=completion.files)
@click.option(
    "-o",
    "--output",
    metavar="FILE",
    shell_complete=completion.files,
    help="Write the report to FILE (replaced whole, never half-written) instead of stdout.",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["markdown", "text"]),
    default="markdown",
    show_default=True,
    help="markdown for GitHub/GitLab (the snapshot folded in <details>); text for plain trackers.",
)
@click.option(
    "--anonymize", is_flag=True, help="Also mask hostname, usernames in paths, serials and GPU UUIDs."
)
@click.option(
    "--python", "python_path", metavar="PATH", help="Live mode: probe this interpreter's environment."
)
@click.option(
    "--no-frameworks", is_flag=True, help="Live mode: don't import ML frameworks (faster, less said)."
)
def report_command(
    snapshot: str | None,
    output: str | None,
    fmt: str,
    anonymize: bool,
    python_path: str | None,
    no_frameworks: bool,
) -> int:
    """The block to paste into a bug report: summary, findings with fixes, and the whole snapshot.

    The summary (OS, Python, torch build and its CUDA/ROCm, driver, GPUs with their compute
    capability or gfx target, toolkits, key packages) reads in the issue itself; the findings
    come with their fixes; the whole snapshot, secrets redacted, is folded in a <details> block
    with its fingerprint. Under 65,536 characters (GitHub's limit): when cut, the report says
    what it left out. `envsnap check`, `show`, `diff` and `tui` read a pasted report back
    (rendered or raw, quoted with '> ', CRLF): same snapshot, same fingerprint, same findings.

    \b
    Examples:
      envsnap report > env.md                    then paste env.md into the issue
      envsnap report -o env.md --anonymize       for a public tracker
      envsnap report --format text               for a plain-text tracker or a mailing list
      envsnap report snapshots/gpu01.yaml        a saved snapshot instead of this machine
      envsnap check issue-comment.md             a maintainer reading a pasted report back
    """
    from envsnap import api
    from envsnap.render.report import render_report
    from envsnap.rules import evaluate
    from envsnap.snapshot import files
    from envsnap.snapshot.redact import anonymize as mask_identity

    if output is not None and output != "-":
        files.check_writable(Path(output))  # fail now, not after probing
    if snapshot is None:
        data = api.collect(
            python=python_path,
            frameworks=not no_frameworks,
            anonymize=anonymize,
            progress=progress_reporter(),
            findings=True,
        )
        warn_failed_probes(data)
    else:
        from envsnap.commands.reports import announce
        from envsnap.snapshot.finalize import checked

        refuse_live_options(snapshot, python=python_path, no_frameworks=no_frameworks)
        data, edited = checked(announce(api.load(snapshot), snapshot))  # redacted, fingerprint recomputed
        warn_edited([snapshot] if edited else [])
        if anonymize:
            data = mask_identity(data)
    text = render_report(data, evaluate(data), "text" if fmt == "text" else "markdown")
    if output is None or output == "-":
        sys.stdout.write(text)
    else:
        files.write_atomic(Path(output), text)
        click.echo(f"envsnap: wrote {output} ({len(text):,} characters): paste it whole", err=True)
    return int(ExitCode.OK)
