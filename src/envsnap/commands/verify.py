"""``envsnap verify show REPORT`` and ``envsnap verify inspect BUNDLE``: read what record/verify wrote.

Recording and verifying happen inside the user's torch process (``envsnap.record``/``verify``);
the command line reads their files, without torch: a report (verdict, first divergence, speed,
placement, environment diff; exit 1 at ``--fail-on``), or a bundle's table of contents (after the
same hostile-input checks verify runs: a bad bundle is one line on stderr and exit 2).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click
import msgspec

from envsnap.commands.common import CONTEXT_SETTINGS, emit_output, output_options
from envsnap.errors import ExitCode

FAIL_ON = ("fail", "fallback", "slow", "pass-with-limitations")


@click.group("verify", context_settings=CONTEXT_SETTINGS)
def verify_command() -> None:
    """Read envsnap.record bundles and envsnap.verify reports.

    \b
    Record on the known-good machine and verify on the new one, in Python:
      with envsnap.record("baseline.envsnap", model=model): model(x)
      with envsnap.verify("baseline.envsnap", model=model) as v: model(v.inputs)
      open("verify.yaml", "w").write(v.report.to_yaml())

    \b
    Examples:
      envsnap verify show verify.yaml                      verdict, first divergence, ratios
      envsnap verify show verify.yaml --fail-on fallback   exit 1 on fail or fallback (CI)
      envsnap verify show verify.yaml --format markdown    for a pull-request comment
      envsnap verify inspect baseline.envsnap              what a bundle holds
    """


@verify_command.command("show", context_settings=CONTEXT_SETTINGS)
@click.argument("report", metavar="REPORT")
@output_options(markdown="the verdict and the modules that diverged, for a pull request")
@click.option(
    "--fail-on",
    type=click.Choice(FAIL_ON),
    default="fail",
    show_default=True,
    help="Exit 1 when the verdict is this or worse (pass-with-limitations < slow < fallback < fail).",
)
def show_command(report: str, fmt: str, fail_on: str) -> int:
    """Show a verify report; exit 1 when its verdict is at or beyond --fail-on.

    \b
    Examples:
      envsnap verify show verify.yaml
      envsnap verify show verify.yaml --json | jq .first_divergence.module
    """
    from envsnap.inprocess.verify.report import VERDICT_SEVERITY, load_report
    from envsnap.snapshot.files import decode_text, read_bytes_capped

    text = decode_text(read_bytes_capped(Path(report), report), report)
    data = load_report(text, report)
    if fmt == "json":
        from envsnap.snapshot.json_text import to_json

        emit_output(to_json(_finite(msgspec.to_builtins(data))))
    elif fmt == "markdown":
        emit_output(data.markdown())
    else:
        from envsnap.snapshot.safe_text import printable

        emit_output(printable(data.table(), limit=None) + "\n")  # table fields are escaped already
    failing = VERDICT_SEVERITY[data.verdict] >= VERDICT_SEVERITY[fail_on]
    return int(ExitCode.FINDINGS if failing else ExitCode.OK)


@verify_command.command("inspect", context_settings=CONTEXT_SETTINGS)
@click.argument("bundle", metavar="BUNDLE")
@click.option("--json", "as_json", is_flag=True, help="Print the bundle's manifest as JSON on stdout.")
def inspect_command(bundle: str, as_json: bool) -> int:
    """What a bundle holds: model, calls, kept tensors, measurements, environment.

    Every member is checked first (pickle, symlinks, path traversal, zip bombs, forged safetensors
    headers): a bad bundle is refused with exit 2.

    \b
    Example:
      envsnap verify inspect baseline.envsnap
    """
    from envsnap.inprocess.bundle.check import check_bundle
    from envsnap.snapshot.redact import redact_strings, redact_text

    checked = check_bundle(bundle)
    if as_json:
        from envsnap.snapshot.json_text import to_json

        # Redacted again on the way out: a bundle recorded by an older envsnap may hold a secret.
        emit_output(to_json(redact_strings(msgspec.to_builtins(checked.manifest))))
        return int(ExitCode.OK)
    from envsnap.snapshot.safe_text import printable

    emit_output(printable(redact_text(_summary(checked))) + "\n")
    return int(ExitCode.OK)


def _summary(checked: Any) -> str:
    from envsnap.inprocess.guard.report import human_bytes

    m = checked.manifest
    leaves = [leaf for call in m.calls for leaf in call.outputs]
    kept = sum(1 for leaf in leaves if leaf.kept)
    lines = [
        f"envsnap record bundle {checked.path}",
        f"recorded {m.created_at} by envsnap {m.envsnap_version}, torch {m.torch_version}",
        f"model: {m.model or '(none given)'}"
        + (f", {m.parameters:,} parameters" if m.parameters is not None else ""),
        f"calls: {len(m.top_calls)} top-level, {len(m.calls)} module calls, {len(leaves)} values "
        f"({kept} kept as tensors, {len(leaves) - kept} stats only); taps: {len(m.taps)}",
        f"kept: {human_bytes(m.kept_bytes)} of a {human_bytes(m.keep_bytes)} budget"
        + (f"; golden: {m.golden}" if m.golden else ""),
    ]
    meas = m.measurements
    if meas is not None and meas.timing is not None:
        t = meas.timing
        lines.append(
            f"timing on {meas.device}: {t.median_s * 1e3:.3g} ms median, IQR {t.iqr_s * 1e3:.2g} ms "
            f"over {t.repeats} repeats"
            + (f"; {meas.throughput_per_s:.3g} items/s" if meas.throughput_per_s else "")
        )
    if meas is not None and meas.peak_memory_bytes is not None:
        lines.append(f"peak memory: {human_bytes(meas.peak_memory_bytes)}")
    noisy = [leaf for leaf in leaves if leaf.noise_max_abs]
    measured = [leaf for leaf in leaves if leaf.noise_max_abs is not None]
    if measured:
        lines.append(f"reference noise: {len(noisy)} of {len(measured)} values differ between two runs")
    if m.placement is not None:
        lines.append(
            f"placement: expected {m.placement.expected_device}, {m.placement.ops_total:,} ops, "
            f"{m.placement.ops_off_device:,} off-device"
        )
    math = _float32_math(m.numerics, meas.device if meas is not None else None)
    if math:
        lines.append(f"float32 math: {math}")
    lines.append("environment snapshot: " + ("yes" if checked.environment_text is not None else "no"))
    lines.append("files: " + ", ".join(f"{f.name} ({human_bytes(f.size_bytes)})" for f in m.files))
    lines += [f"note: {note}" for note in m.notes]
    return "\n".join(lines)


def _float32_math(numerics: dict[str, str], device: str | None) -> str | None:
    """What the recorded float32 settings allowed on the recording device (fp32_math.py)."""
    from envsnap.inprocess.fp32_math import known, reduced

    settings = known(numerics)
    if not settings:
        return None
    allowed = reduced(settings, device)
    said = [f"TF32 allowed for {kind} ({why})" for kind, why in allowed.items()] or [
        f"no TF32 on {device or 'the recording device'}"
    ]
    deterministic = settings.get("deterministic_algorithms")
    if deterministic is not None:
        said.append(f"deterministic algorithms {deterministic}")
    return "; ".join(said)


def _finite(value: Any) -> Any:
    """JSON has no Infinity or NaN: SQNR of identical values (∞) becomes the string "inf"."""
    if isinstance(value, float) and value != value:
        return "nan"
    if isinstance(value, float) and value in (float("inf"), float("-inf")):
        return "inf" if value > 0 else "-inf"
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(item) for item in value]
    return value
