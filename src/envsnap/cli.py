"""The ``envsnap`` command line: parse arguments, call the API, render. Nothing else lives here.

Contract (README, DESIGN.md): stdout is data, stderr is diagnostics; every reporting command has
``--json``; exit codes are ``errors.ExitCode``. Heavy modules (textual, torch, pynvml, amdsmi) are
imported inside the commands that need them, so ``--help`` and ``--version`` stay fast.
"""

from __future__ import annotations

import errno
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

from envsnap import __version__
from envsnap.errors import BadInput, EnvsnapError, ExitCode

CONTEXT_SETTINGS: dict[str, Any] = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


def _stderr_console() -> Any:
    from envsnap.render.console import stderr_console

    return stderr_console()


@click.group(context_settings=CONTEXT_SETTINGS, invoke_without_command=True)
@click.version_option(__version__, "-V", "--version", prog_name="envsnap")
@click.pass_context
def cli(ctx: click.Context) -> int:
    """Probe, check, snapshot, diff and roll back the ML stack of a GPU host.

    Run without a command on a terminal to open the live inspector (the TUI).

    \b
    Examples:
      envsnap save                        record this machine to snapshots/<host>-<time>.yaml
      envsnap show                        summarize the live machine
      envsnap check                       what is wrong with this stack, and how to fix it
      envsnap diff old.yaml new.yaml      what changed between two machines or two days

    \b
    Exit codes: 0 ok · 1 findings or differences · 2 bad usage or input · 3 envsnap failed.
    """
    if ctx.invoked_subcommand is not None:
        return int(ExitCode.OK)
    if sys.stdin.isatty() and sys.stdout.isatty():
        return int(ctx.invoke(tui_command))
    click.echo(ctx.get_help())
    return int(ExitCode.OK)


# ---------------------------------------------------------------------------- save / show


@cli.command("save", context_settings=CONTEXT_SETTINGS)
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
    "--timeout-scale",
    type=click.FloatRange(min=0.1),
    default=1.0,
    show_default=True,
    help="Multiply every probe's deadline (slow file systems, cold caches).",
)
def save_command(
    output: str | None, python_path: str | None, anonymize: bool, no_frameworks: bool, timeout_scale: float
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
    from envsnap import api, store
    from envsnap.render.summary import one_line_summary

    if output is not None and output != "-":
        store.check_writable(Path(output))  # fail now, not after a minute of probing
    snapshot = api.collect(
        python=python_path,
        frameworks=not no_frameworks,
        anonymize=anonymize,
        timeout_scale=timeout_scale,
        progress=_progress_reporter(),
        findings=True,
    )
    if output == "-":
        sys.stdout.write(store.dumps(snapshot))
    else:
        path = Path(output) if output else api.default_snapshot_path(snapshot)
        store.save(snapshot, path)
        click.echo(str(path))
    _stderr_console().print(one_line_summary(snapshot), soft_wrap=True)
    return int(ExitCode.OK)


@cli.command("show", context_settings=CONTEXT_SETTINGS)
@click.argument("snapshot", required=False, metavar="[SNAPSHOT]")
@click.option("--json", "as_json", is_flag=True, help="Print the whole snapshot as JSON on stdout.")
@click.option(
    "--python", "python_path", metavar="PATH", help="Live mode: probe this interpreter's environment."
)
@click.option("--no-frameworks", is_flag=True, help="Live mode: don't import ML frameworks (faster).")
def show_command(snapshot: str | None, as_json: bool, python_path: str | None, no_frameworks: bool) -> int:
    """Summarize a saved snapshot, or the live machine when no file is given.

    \b
    Examples:
      envsnap show                        the live machine
      envsnap show snapshots/gpu01.yaml   a saved snapshot
      envsnap show --json | jq .frameworks.torch
    """
    from envsnap import api
    from envsnap.redact import redact_snapshot

    if snapshot is None:
        data = api.collect(
            python=python_path, frameworks=not no_frameworks, progress=_progress_reporter(), findings=True
        )
        _warn_failed_probes(data)
    else:
        _refuse_live_options(snapshot, python=python_path, no_frameworks=no_frameworks)
        data = redact_snapshot(api.load(snapshot))  # a hand-edited file may hold secrets
    if as_json:
        from envsnap.render.data import to_json

        click.echo(to_json(data))
    else:
        from envsnap.render.summary import render_summary

        _print_out(render_summary(data))
    return int(ExitCode.OK)


# ---------------------------------------------------------------------------- check


@cli.command("check", context_settings=CONTEXT_SETTINGS)
@click.argument("snapshot", required=False, metavar="[SNAPSHOT]")
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
    help="Drift gate: diff the live machine (or SNAPSHOT) against this known-good snapshot instead.",
)
@click.option(
    "--json", "as_json", is_flag=True, help='Print {"findings": [...], "fingerprint": ...} on stdout.'
)
@click.option(
    "--python", "python_path", metavar="PATH", help="Live mode: probe this interpreter's environment."
)
@click.option(
    "--no-frameworks", is_flag=True, help="Live mode: don't import ML frameworks (faster, fewer checks)."
)
def check_command(
    snapshot: str | None,
    fail_on: str,
    against: str | None,
    as_json: bool,
    python_path: str | None,
    no_frameworks: bool,
) -> int:
    """What is wrong with this stack, and how to fix it: run every check on a snapshot or the live machine.

    Each finding names its evidence (snapshot paths and values), a concrete fix and the source
    of the rule. Exit 1 when a finding at or above --fail-on exists, 0 otherwise, 2 when the
    snapshot cannot be read.

    \b
    Examples:
      envsnap check                              the live machine
      envsnap check snapshots/gpu01.yaml         a saved (or imported) snapshot
      envsnap check --fail-on warning            CI gate: warnings fail too
      envsnap check --json | jq '.findings[].id'
      envsnap check --against known-good.yaml    CI drift gate: exit 1 on any breaking change
      envsnap check --against known-good.yaml --fail-on notable today.yaml
    """
    if against is not None:
        return _check_against(against, snapshot, fail_on, as_json, python_path, no_frameworks)
    if fail_on not in ("error", "warning", "info"):
        raise BadInput(f"--fail-on {fail_on} grades changes: use it with --against KNOWN_GOOD")
    data = _check_target(snapshot, python_path, no_frameworks)
    return _report_findings(data, fail_on, as_json)


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
    from envsnap.comparison import not_compared
    from envsnap.diff_input import checked, load_checked
    from envsnap.impact import IMPACT_RANK
    from envsnap.render.diff import diff_report

    source = click.get_current_context().get_parameter_source("fail_on")
    threshold = "breaking" if source == click.core.ParameterSource.DEFAULT else fail_on
    if threshold not in IMPACT_RANK:
        raise BadInput(f"--fail-on {fail_on}: with --against, use breaking, notable or minor")
    (known,), edited = load_checked([against])  # an unreadable known-good fails before any probing
    data, data_edited = checked(_check_target(snapshot, python_path, no_frameworks))
    _warn_edited([*edited, *([snapshot] if data_edited and snapshot else [])])
    changes = api.diff(known, data)
    host = (data.host.hostname if data.host else None) or "this machine"
    labels = [Path(against).name, Path(snapshot).name if snapshot else f"{host} (live)"]
    fingerprints = [known.fingerprint, data.fingerprint]
    skipped = not_compared(known, data)
    _emit(diff_report(changes, labels, fingerprints, "json" if as_json else "text", skipped))
    failing = any(IMPACT_RANK[change.impact] <= IMPACT_RANK[threshold] for change in changes)
    return int(ExitCode.FINDINGS if failing else ExitCode.OK)


def _check_target(snapshot: str | None, python_path: str | None, no_frameworks: bool) -> Any:
    """The snapshot to check: the file given (secrets redacted), or a fresh probe of this machine."""
    from envsnap import api

    if snapshot is None:
        data = api.collect(
            python=python_path, frameworks=not no_frameworks, progress=_progress_reporter(), findings=False
        )
        _warn_failed_probes(data)
        return data
    _refuse_live_options(snapshot, python=python_path, no_frameworks=no_frameworks)
    from envsnap.redact import redact_snapshot

    return redact_snapshot(api.load(snapshot))  # a hand-edited file may hold secrets


def _report_findings(data: Any, fail_on: str, as_json: bool) -> int:
    """Run the rules on ``data``, print the findings, and turn them into the exit code."""
    from envsnap.rules import evaluate
    from envsnap.rules.base import SEVERITY_RANK

    findings = evaluate(data)
    if as_json:
        from envsnap.render.findings import findings_json

        click.echo(findings_json(findings, data.fingerprint))
    else:
        from envsnap.render.findings import render_findings

        _print_out(render_findings(findings, data.fingerprint))
    failing = any(SEVERITY_RANK[f.severity] <= SEVERITY_RANK[fail_on] for f in findings)
    return int(ExitCode.FINDINGS if failing else ExitCode.OK)


@cli.command("import", context_settings=CONTEXT_SETTINGS)
@click.argument("kind", type=click.Choice(["collect-env", "pip-freeze", "nvidia-smi-xml"]))
@click.argument("file", metavar="FILE|-")
@click.option("-o", "--output", metavar="PATH", help="Write the snapshot here instead of stdout.")
@click.option("--allow-partial", is_flag=True, help="collect-env: import a report that was cut off.")
def import_command(kind: str, file: str, output: str | None, allow_partial: bool) -> int:
    """Turn a report people already paste into a snapshot the checks and diff can judge.

    KIND is collect-env (the output of `python -m torch.utils.collect_env`), pip-freeze, or
    nvidia-smi-xml (`nvidia-smi -q -x`). FILE '-' reads standard input. The snapshot records that
    it was imported and from what; fields the report lacks are left out, never guessed. The
    checks run on it: their counts go to stderr, the findings themselves into the snapshot
    (`envsnap check IMPORTED.yaml` shows them in full).

    \b
    Examples:
      envsnap import collect-env bug-report.txt -o reporter.yaml && envsnap check reporter.yaml
      pip freeze | envsnap import pip-freeze - -o frozen.yaml
      nvidia-smi -q -x | envsnap import nvidia-smi-xml - > gpus.yaml
    """
    from envsnap import api, store
    from envsnap.collector import finalize, utc_now
    from envsnap.importers import parse_report, read_report

    text, name = read_report(file)
    snapshot = parse_report(kind, text, name, captured_at=utc_now(), allow_partial=allow_partial)  # type: ignore[arg-type]
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


def _warn_failed_probes(snapshot: Any) -> None:
    """Say on stderr which probes failed, so a green check can't hide a layer that wasn't read."""
    for run in snapshot.meta.probes or ():
        if run.status == "failed":
            click.echo(f"envsnap: warning: the {run.name} probe failed: {run.reason}", err=True)


def _refuse_live_options(snapshot: str, **live_options: object) -> None:
    """Options that only shape a live probe make no sense with a saved snapshot: say so."""
    given = [name for name, value in live_options.items() if value]
    if given:
        flags = ", ".join("--" + name.replace("_", "-") for name in given)
        raise click.UsageError(f"{flags} only applies to the live machine, not to {snapshot}")


def _print_out(renderable: Any) -> None:
    from envsnap.render.console import print_out

    print_out(renderable)


def _progress_reporter() -> Any:
    """A callback that shows which probes are still running, when stderr is a terminal."""
    if not sys.stderr.isatty():
        return None
    from envsnap.render.progress import ProbeSpinner

    return ProbeSpinner(_stderr_console())


# ---------------------------------------------------------------------------- diff


def _emit(output: Any) -> None:
    """Text (JSON, Markdown, one line) goes out verbatim; Rich tables unwrapped when piped."""
    from envsnap.render.diff import emit

    emit(output)


def _warn_edited(files: Sequence[str]) -> None:
    """One stderr line for snapshot files whose stored fingerprint does not match their content."""
    from envsnap.diff_input import mismatch_warning
    from envsnap.render.safe_text import one_line

    warning = mismatch_warning([one_line(name) for name in files])
    if warning:
        click.echo(warning, err=True)


@cli.command("diff", context_settings=CONTEXT_SETTINGS)
@click.argument("snapshots", nargs=-1, metavar="A B [C ...]")
@click.option("--json", "as_json", is_flag=True, help="Same as --format json.")
@click.option(
    "--format", "fmt", type=click.Choice(["text", "json", "markdown"]), default="text", show_default=True
)
@click.option(
    "--only",
    multiple=True,
    metavar="LAYER",
    help="Only this layer (repeatable): host, driver, runtime, framework, devices, packages, "
    "extensions, environment, telemetry (--only telemetry implies --include-telemetry).",
)
@click.option(
    "--include-telemetry", is_flag=True, help="Also compare live metrics (memory used, temperatures)."
)
def diff_command(
    snapshots: tuple[str, ...], as_json: bool, fmt: str, only: tuple[str, ...], include_telemetry: bool
) -> int:
    """What changed between two snapshots; with three or more, which hosts differ from the rest.

    Devices are matched by model and position (never by UUID), packages by normalized name; host
    identity, capture metadata and findings are ignored. Each change has an impact: breaking,
    notable or minor. A section one file lacks (an imported report) is not compared, and the
    summary says so. With 3+ files: every field that differs anywhere, its majority value and
    the hosts that deviate. Exit 0 when identical, 1 when anything differs, 2 on bad input.

    \b
    Examples:
      envsnap diff known-good.yaml today.yaml
      envsnap diff before.yaml after.yaml --only packages --only framework
      envsnap diff a.yaml b.yaml --format markdown >> pr-description.md
      envsnap diff snapshots/*.yaml --json | jq '.fields[] | select(.impact == "breaking")'
    """
    from envsnap import api
    from envsnap.comparison import not_compared
    from envsnap.diff_input import load_checked
    from envsnap.fleet import fleet, host_labels
    from envsnap.impact import LAYERS
    from envsnap.render.diff import diff_report, fleet_report

    if len(snapshots) < 2:
        raise BadInput("diff needs at least two snapshot files (envsnap diff A B [C ...])")
    unknown = sorted(set(only) - set(LAYERS))
    if unknown:
        raise BadInput(f"--only: unknown layer {', '.join(unknown)} (layers: {', '.join(LAYERS)})")
    loaded, edited = load_checked(snapshots)  # redacted, fingerprints recomputed
    _warn_edited(edited)
    labels = host_labels(loaded, snapshots)
    fmt = "json" if as_json else fmt
    layers = only or None
    include_telemetry = include_telemetry or "telemetry" in only  # asking for the layer asks for the data
    if len(loaded) == 2:
        changes = api.diff(loaded[0], loaded[1], include_telemetry=include_telemetry, only=layers)
        skipped = not_compared(loaded[0], loaded[1], include_telemetry=include_telemetry, only=layers)
        fingerprints = [s.fingerprint for s in loaded]
        _emit(diff_report(changes, labels, fingerprints, fmt, skipped))
        return int(ExitCode.FINDINGS if changes else ExitCode.OK)
    report = fleet(loaded, labels, include_telemetry=include_telemetry, only=layers)
    _emit(fleet_report(report, fmt))
    return int(ExitCode.FINDINGS if report.fields else ExitCode.OK)


# ---------------------------------------------------------------------------- rollback


@cli.command("rollback", context_settings=CONTEXT_SETTINGS)
@click.argument("snapshot", metavar="SNAPSHOT")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["requirements", "conda", "script"]),
    default="requirements",
    show_default=True,
    help="requirements.txt, a conda environment.yml, or a commented POSIX shell script.",
)
@click.option("-o", "--output", metavar="PATH", help="Write the plan to PATH (atomically) instead of stdout.")
@click.option(
    "--live/--no-live",
    default=True,
    show_default=True,
    help="Probe this machine (no frameworks) so manual steps say what is installed now.",
)
@click.option("--apply", "do_apply", is_flag=True, help="Restore the packages of --python's environment now.")
@click.option(
    "--python", "python_path", metavar="PATH", help="The target interpreter (required with --apply)."
)
@click.option(
    "--dry-run", is_flag=True, help="With --apply: print the pip commands it would run; run nothing."
)
@click.option(
    "-y", "--yes", is_flag=True, help="With --apply: don't ask for confirmation (needed off a terminal)."
)
def rollback_command(
    snapshot: str,
    fmt: str,
    output: str | None,
    live: bool,
    do_apply: bool,
    python_path: str | None,
    dry_run: bool,
    yes: bool,
) -> int:
    """Get back to a snapshot's environment: a pinned plan, or (--apply) the restore itself.

    The plan pins every distribution exactly (PyTorch variants with their download.pytorch.org
    index, VCS installs at their commit) and lists what pip cannot restore as manual steps:
    the NVIDIA/AMD driver, CUDA/ROCm toolkits, the interpreter, editable installs. With --apply,
    pip (run by --python) installs the pins with --no-deps, then removes what the snapshot
    lacks (never pip/setuptools/wheel, nor envsnap and its requirements in envsnap's own
    environment); then the packages are read again and compared: exit 0 when they match, 1
    when not. It asks first on a terminal (no: exit 1, nothing changed); elsewhere it needs --yes
    (--dry-run prints the pip commands instead). A snapshot with an unsafe
    name, version or URL, or without a package list, is refused (exit 2) before anything runs.

    \b
    Examples:
      envsnap rollback known-good.yaml > requirements.txt
      envsnap rollback known-good.yaml --format conda -o environment.yml
      envsnap rollback known-good.yaml --format script --no-live > restore.sh
      envsnap rollback known-good.yaml --apply --python .venv/bin/python --dry-run
      envsnap rollback known-good.yaml --apply --python .venv/bin/python --yes
    """
    from envsnap import api

    _check_rollback_usage(do_apply, output, dry_run, yes)
    data = api.load(snapshot)
    label = Path(snapshot).name
    if do_apply:
        return _rollback_apply(data, label, python_path, dry_run=dry_run, yes=yes)
    import dataclasses

    import msgspec

    from envsnap import store
    from envsnap.render.rollback import render_plan
    from envsnap.rollback import plan, system_steps

    restore = plan(data, label=label)  # refuses an unsafe snapshot before probing anything
    if live:
        now = api.collect(python=python_path, frameworks=False, findings=False, progress=_progress_reporter())
        if python_path is None:  # envsnap's own interpreter says nothing about the target's Python
            now = msgspec.structs.replace(now, python=None)
        restore = dataclasses.replace(restore, system=system_steps(data, now, label))
    if restore.packages_unknown:
        click.echo(
            f"envsnap: warning: {label}: the package layer is unknown ({restore.packages_unknown}); "
            "the plan pins no packages",
            err=True,
        )
    text = render_plan(restore, fmt)
    if output:
        store.write_atomic(Path(output), text)
        click.echo(output)
    else:
        sys.stdout.write(text)
    return int(ExitCode.OK)


def _check_rollback_usage(do_apply: bool, output: str | None, dry_run: bool, yes: bool) -> None:
    """Options that belong to one mode only are usage errors in the other (exit 2)."""
    if do_apply:
        source = click.get_current_context().get_parameter_source("fmt")
        if output is not None or source != click.core.ParameterSource.DEFAULT:
            raise BadInput("--apply restores the environment itself: -o/--output and --format don't apply")
    elif dry_run or yes:
        raise BadInput(f"{'--dry-run' if dry_run else '--yes'} only goes with --apply")


def _rollback_apply(data: Any, label: str, python_path: str | None, *, dry_run: bool, yes: bool) -> int:
    from rich.text import Text

    from envsnap.render.diff import diff_report
    from envsnap.render.rollback import manual_text, pip_commands
    from envsnap.render.safe_text import one_line, printable
    from envsnap.rollback_apply import execute, prepare

    if not python_path:
        raise BadInput("--apply needs --python PATH: the interpreter whose environment to restore")
    err = _stderr_console()

    def show(line: str) -> None:  # pip's lines verbatim: never re-wrapped to the terminal width
        err.print(Text(printable(line), style="dim"), soft_wrap=True)

    prepared = prepare(data, python_path, label=label)  # refuses a hostile or package-less snapshot
    if prepared.protected:
        names = ", ".join(prepared.protected)
        show(f"envsnap: keeping {names}: envsnap runs from this environment and needs them")
    if dry_run:
        sys.stdout.write(pip_commands(prepared))
        if not prepared.commands():
            click.echo(f"envsnap: nothing to do: the packages of {python_path} match {label}", err=True)
        return int(ExitCode.OK)
    if (prepared.install or prepared.remove) and not yes:
        counts = f"install {len(prepared.install)}, remove {len(prepared.remove)} distribution(s)"
        question = f"restore {one_line(label)} into {python_path}: {counts}"
        if not sys.stdin.isatty():
            raise BadInput(f"{question}: re-run with --yes to confirm (--dry-run prints the pip commands)")
        if prepared.remove:
            show(f"envsnap: would remove: {', '.join(prepared.remove)}")
        if not click.confirm(f"{question}?", default=False, err=True):
            click.echo("envsnap: not confirmed; nothing was changed", err=True)
            return int(ExitCode.FINDINGS)
    result = execute(prepared, data, on_line=show)
    for item in result.manual:
        err.print(Text(f"not restored automatically: {manual_text(item)}", style="yellow"))
    if result.kept:
        kept = ", ".join(result.kept)
        err.print(Text(f"kept (installer tooling, not in the snapshot): {kept}", style="dim"))
    if result.pip_failed:
        err.print(Text("pip reported an error (see its output above)", style="bold red"))
    if result.remaining:
        _emit(diff_report(result.remaining, [label, python_path], [None, None], "text"))
        return int(ExitCode.FINDINGS)
    done = f"restored: the packages of {python_path} match {label}"
    click.echo(f"{done} (removed {len(result.removed)}, installed {len(result.installed)})")
    return int(ExitCode.FINDINGS if result.pip_failed else ExitCode.OK)


# ---------------------------------------------------------------------------- run / watch (CPU fallback)


def _fallback_options(command: Any) -> Any:
    """Options shared by ``run`` and ``watch``: sampling, verdict thresholds, report."""
    options = [
        click.option(
            "--interval", type=click.FloatRange(min=0.05), default=1.0, show_default=True, metavar="S",
            help="Seconds between samples.",
        ),
        click.option(
            "--expect", type=click.Choice(["cuda", "rocm", "xpu", "mps"]),
            help="Only count devices of this backend (cuda = NVIDIA, rocm = AMD, xpu = Intel).",
        ),
        click.option(
            "--cpu-busy", type=click.FloatRange(min=1.0), default=90.0, show_default=True, metavar="PERCENT",
            help="Tree CPU counted as CPU-bound (100 = one core).",
        ),
        click.option(
            "--sustain", type=click.FloatRange(min=0.0), default=10.0, show_default=True, metavar="S",
            help="How long a suspicious state must last before it is flagged.",
        ),
        click.option(
            "--gpu-idle", type=click.FloatRange(min=0.0, max=100.0), default=5.0, show_default=True,
            metavar="PERCENT", help="GPU utilization counted as idle.",
        ),
        click.option(
            "--report", metavar="PATH",
            help="Where to write the run report (YAML; JSON if PATH ends in .json), replacing PATH. "
            "Default: envsnap-run|watch-<UTC time>-<PID>.yaml here, never overwriting a file.",
        ),
        click.option("--no-report", is_flag=True, help="No report file (the summary still goes to stderr)."),
        click.option("--no-status", is_flag=True, help="No live status in the terminal's title."),
    ]  # fmt: skip
    for option in reversed(options):
        command = option(command)
    return command


def _thresholds(interval: float, cpu_busy: float, sustain: float, gpu_idle: float) -> Any:
    from envsnap.live.run_report import Thresholds

    return Thresholds(
        interval_s=interval, cpu_busy_percent=cpu_busy, sustain_s=sustain, gpu_idle_percent=gpu_idle
    )


@cli.command(
    "run",
    context_settings={**CONTEXT_SETTINGS, "ignore_unknown_options": True, "allow_interspersed_args": False},
)
@_fallback_options
@click.option(
    "--fail-on-fallback",
    is_flag=True,
    help="CI gate: exit 69 when the command exited 0 but the verdict is cpu-fallback-suspected or "
    "gpu-idle-while-busy (or no-accelerator with --expect).",
)
@click.argument("command", nargs=-1, required=True, type=click.UNPROCESSED)
def run_command(
    command: tuple[str, ...],
    interval: float,
    expect: str | None,
    cpu_busy: float,
    sustain: float,
    gpu_idle: float,
    report: str | None,
    no_report: bool,
    no_status: bool,
    fail_on_fallback: bool,
) -> int:
    """Run a command and catch it silently running on the CPU instead of the GPU.

    Samples the command's whole process tree (CPU, memory, threads) and every GPU (utilization,
    memory, which PIDs hold memory) until it ends. Verdict: gpu-active, cpu-fallback-suspected,
    gpu-idle-while-busy, no-accelerator or inconclusive, with evidence, in the report file and on
    stderr; secrets in the command line are redacted. stdout is the command's, so there is no
    --json: the report file (--report run.json for JSON) is the machine-readable result. The
    live status goes to the terminal's title, never between the command's own lines.

    Exit status: the command's (128+n after signal n; signals are passed on to it); 127 / 126
    when it can't be found / run; 2 for bad options (nothing ran); 69 with --fail-on-fallback.
    A report that can't be written at the end is an error on stderr and leaves the command's
    status unchanged.

    \b
    Examples:
      envsnap run -- python train.py --epochs 3
      envsnap run --expect cuda --report runs/train.yaml -- torchrun --nproc-per-node 8 train.py
      envsnap run --expect cuda --fail-on-fallback -- pytest tests/gpu
      envsnap run --interval 0.5 --sustain 5 -- python -c "sum(i*i for i in range(10**8))"
    """
    from envsnap.live.run_command import run_cli

    return run_cli(
        command,
        thresholds=_thresholds(interval, cpu_busy, sustain, gpu_idle),
        expect=expect,  # type: ignore[arg-type]  # click.Choice checked it
        report=report,
        no_report=no_report,
        status=not no_status,
        fail_on_fallback=fail_on_fallback,
    )


@cli.command("watch", context_settings=CONTEXT_SETTINGS)
@click.option(
    "--pid", type=click.IntRange(min=1), required=True, help="The process to watch (with its children)."
)
@_fallback_options
@click.option("--json", "as_json", is_flag=True, help="Also print the report as JSON on stdout.")
def watch_command(
    pid: int,
    interval: float,
    expect: str | None,
    cpu_busy: float,
    sustain: float,
    gpu_idle: float,
    report: str | None,
    no_report: bool,
    no_status: bool,
    as_json: bool,
) -> int:
    """Watch a running process for silent CPU fallback, until it exits or Ctrl-C.

    Same sampling, verdict and report as `envsnap run` (the report says `report: envsnap-watch`).
    Exit status: 0 when the process ended, 130 (or 143) when Ctrl-C (or SIGTERM) stopped the
    watch first, 2 when the report could not be written.

    \b
    Examples:
      envsnap watch --pid 4242
      envsnap watch --pid "$(pgrep -f train.py | head -1)" --report watch.yaml --json | jq .verdict
    """
    from envsnap.live.run_command import watch_cli

    return watch_cli(
        pid,
        thresholds=_thresholds(interval, cpu_busy, sustain, gpu_idle),
        expect=expect,  # type: ignore[arg-type]  # click.Choice checked it
        report=report,
        no_report=no_report,
        status=not no_status,
        as_json=as_json,
    )


# ---------------------------------------------------------------------------- tui


@cli.command("tui", context_settings=CONTEXT_SETTINGS)
@click.argument("snapshot", required=False, metavar="[SNAPSHOT]")
@click.option(
    "--interval",
    type=click.FloatRange(min=0.1),
    default=1.0,
    show_default=True,
    help="Seconds between live telemetry samples (at least 0.1).",
)
@click.option(
    "--dir",
    "snapshot_dir",
    metavar="DIR",
    default="snapshots",
    show_default=True,
    help="Folder of saved snapshots: listed on the Snapshots tab, written by the s key.",
)
@click.option(
    "--python", "python_path", metavar="PATH", help="Live mode: probe this interpreter's environment."
)
@click.option("--no-frameworks", is_flag=True, help="Live mode: don't import ML frameworks (faster).")
def tui_command(
    snapshot: str | None = None,
    interval: float = 1.0,
    snapshot_dir: str = "snapshots",
    python_path: str | None = None,
    no_frameworks: bool = False,
) -> int:
    """Open the interactive inspector: live on this machine, or read-only on a saved snapshot.

    Tabs: Overview (layers and their health), Devices (live GPU telemetry), Packages, Checks
    (findings and fixes), Snapshots (saved snapshots; s saves, d diffs). Press ? for every key.

    \b
    Examples:
      envsnap tui                          live, sampling GPUs every second
      envsnap tui --interval 0.5           sample twice a second
      envsnap tui snapshots/gpu01.yaml     a saved snapshot, read-only
    """
    from envsnap.tui.app import EnvsnapApp
    from envsnap.tui.defaults import live_collector

    app = EnvsnapApp(
        snapshot_path=Path(snapshot) if snapshot is not None else None,
        interval_s=interval,
        snapshot_dir=Path(snapshot_dir),
        collector=live_collector(python=python_path, frameworks=not no_frameworks),
    )
    app.run()
    return int(app.return_code or ExitCode.OK)


# ---------------------------------------------------------------------------- entry point


def main(argv: Sequence[str] | None = None) -> None:
    """Console-script entry point: run the CLI and turn every outcome into an exit code."""
    if sys.stdout is None:  # started with stdout closed (`envsnap show >&-`): data would vanish
        if sys.stderr is not None:
            sys.stderr.write("envsnap: error: standard output is closed\n")
        sys.exit(int(ExitCode.BAD_INPUT))
    code = run(argv)
    try:
        if sys.stdout is not None:
            sys.stdout.flush()
    except OSError:
        code = code or int(ExitCode.BAD_INPUT)
    if code == 130:
        # Interrupted: leave now. Abandoned probe threads and child waits would otherwise be
        # joined at interpreter exit, where a second Ctrl-C prints a traceback.
        os._exit(code)
    sys.exit(code)


def run(argv: Sequence[str] | None = None) -> int:
    """Run the CLI and return its exit code; errors become one line on stderr."""
    try:
        result = cli.main(
            args=list(argv) if argv is not None else None, prog_name="envsnap", standalone_mode=False
        )
    except click.exceptions.Exit as done:
        return int(done.exit_code)
    except click.ClickException as err:
        err.show()
        return int(ExitCode.BAD_INPUT)
    except (click.exceptions.Abort, KeyboardInterrupt):
        click.echo("envsnap: interrupted", err=True)
        return 130
    except EnvsnapError as err:
        click.echo(f"envsnap: error: {err}", err=True)
        return int(err.exit_code)
    except BrokenPipeError:
        # The reader went away (envsnap show | head): not an error of ours.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return int(ExitCode.OK)
    except OSError as err:
        if err.errno in _OUTPUT_ERRNOS and not os.environ.get("ENVSNAP_DEBUG"):
            click.echo(f"envsnap: error: cannot write the output: {err.strerror}", err=True)
            return int(ExitCode.BAD_INPUT)
        return _internal_error(err)
    except Exception as err:
        return _internal_error(err)
    return int(result) if isinstance(result, int) else int(ExitCode.OK)


_OUTPUT_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EBADF})
"""Errors of the place output goes (``> /dev/full``, a closed stdout): the user's to fix."""


def _internal_error(err: Exception) -> int:
    if os.environ.get("ENVSNAP_DEBUG"):
        raise err
    click.echo(
        f"envsnap: internal error: {type(err).__name__}: {err} (set ENVSNAP_DEBUG=1 for a traceback)",
        err=True,
    )
    return int(ExitCode.INTERNAL)
