"""A snapshot as Prometheus metrics: the families behind ``envsnap export prometheus`` and ``envsnap serve``.

Pure: a snapshot, the changes against a known-good one and the watch states come in, metric
families (prometheus-client's ``GaugeMetricFamily`` / ``InfoMetricFamily``) come out; the text
exposition is prometheus-client's own ``generate_latest`` over them, so escaping and the format's
details are the reference implementation's, not ours.

Every family is a gauge (an ``*_info`` metric is a gauge of 1 whose labels carry the facts), and
every label set is bounded by the machine, not by its data:

- ``envsnap_stack_info``: one series per node (driver, CUDA, torch, ... as labels);
- ``envsnap_gpu_info``: one per device; ``envsnap_findings``: one per rule id that fired;
- ``envsnap_drift_changes``: impact x layer (3 x 8), zeros included, so an alert on
  ``impact="breaking"`` resolves instead of going stale; packages are counted, never labelled;
- ``envsnap_probe_status``: probe x status, one-hot (the enum pattern of kube-state-metrics);
- ``envsnap_watch_verdict``: watched process x verdict, one-hot, for at most ``MAX_WATCHES``.

Label values come from the machine and from files, so they are hostile: each is redacted
(a token in a GPU name is still a token), put on one line with controls escaped, and capped at
``MAX_LABEL_CHARS`` (a 4 MB hostname must not become a 4 MB series).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

from prometheus_client.core import GaugeMetricFamily, InfoMetricFamily, Metric
from prometheus_client.exposition import generate_latest
from prometheus_client.registry import Collector

from envsnap._version import __version__
from envsnap.compare.impact import IMPACTS, LAYERS
from envsnap.live.watch_state import VERDICTS, WatchState
from envsnap.snapshot.model import Change, Snapshot, Status
from envsnap.snapshot.redact import redact_text
from envsnap.snapshot.safe_text import one_line

MAX_LABEL_CHARS = 200
"""Longest label value written (longer ones are cut, with the full length said)."""

PROBE_STATUSES: tuple[Status, ...] = ("ok", "skipped", "failed")

STACK_LABELS = ("driver", "cuda", "cuda_toolkit", "torch", "torch_cuda", "rocm", "python", "fingerprint")
"""Labels of ``envsnap_stack_info``; an unknown value is the empty string (Prometheus: label absent)."""

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
"""The text exposition format written by ``exposition`` (node_exporter's textfile collector reads it)."""


def label(value: object) -> str:
    """A label value safe to expose: redacted, one line, controls escaped, at most MAX_LABEL_CHARS."""
    if value is None:
        return ""
    return one_line(redact_text(str(value)), MAX_LABEL_CHARS)


@dataclass(frozen=True)
class Drift:
    """The changes of a snapshot against a known-good one (``--against``)."""

    changes: Sequence[Change]
    known_good_fingerprint: str | None


def snapshot_families(snapshot: Snapshot, *, drift: Drift | None = None) -> list[Metric]:
    """Every envsnap metric family of one capture of a node, in a fixed order (watches apart)."""
    families = [
        _build_info(),
        _stack_info(snapshot),
        _gpu_info(snapshot),
        _findings(snapshot),
        *_probes(snapshot),
        *_capture(snapshot),
    ]
    if drift is not None:
        families += _drift(drift)
    return families


def _build_info() -> Metric:
    family = InfoMetricFamily("envsnap_build", "The envsnap that wrote these metrics.", labels=["version"])
    family.add_metric([label(__version__)], {})
    return family


def stack_values(snapshot: Snapshot) -> dict[str, str]:
    """The labels of ``envsnap_stack_info`` for a snapshot (empty string: not known)."""
    accelerators = snapshot.accelerators
    nvidia = accelerators.nvidia if accelerators else None
    amd = accelerators.amd if accelerators else None
    toolkits = snapshot.toolkits
    torch = snapshot.frameworks.torch if snapshot.frameworks else None
    rocm = (amd.rocm_version if amd else None) or (
        toolkits.rocm.version if toolkits and toolkits.rocm else None
    )
    values = {
        "driver": (nvidia.driver_version if nvidia else None) or (amd.driver_version if amd else None),
        "cuda": nvidia.cuda_driver_version if nvidia else None,
        "cuda_toolkit": toolkits.cuda.version if toolkits and toolkits.cuda else None,
        "torch": torch.version if torch else None,
        "torch_cuda": torch.cuda if torch else None,
        "rocm": rocm,
        "python": snapshot.python.version if snapshot.python else None,
        "fingerprint": snapshot.fingerprint,
    }
    return {name: label(values[name]) for name in STACK_LABELS}


def _stack_info(snapshot: Snapshot) -> Metric:
    family = InfoMetricFamily(
        "envsnap_stack",
        "The node's ML stack: NVIDIA (or AMD) driver, the CUDA the driver supports, the CUDA toolkit, "
        "torch and the CUDA it was built with, ROCm, Python, and the snapshot fingerprint (1 per node).",
    )
    family.add_metric([], stack_values(snapshot))
    return family


def _gpu_info(snapshot: Snapshot) -> Metric:
    family = GaugeMetricFamily(
        "envsnap_gpu_info",
        "One series per GPU with its static facts; compute_capability is the gfx target on AMD.",
        labels=["vendor", "index", "name", "uuid", "compute_capability"],
    )
    accelerators = snapshot.accelerators
    if accelerators is None:
        return family
    if accelerators.nvidia is not None:
        for device in accelerators.nvidia.devices or ():
            family.add_metric(
                [
                    "nvidia",
                    str(device.index),
                    label(device.name),
                    label(device.uuid),
                    label(device.compute_capability),
                ],
                1,
            )
    if accelerators.amd is not None:
        for amd_device in accelerators.amd.devices or ():
            family.add_metric(
                [
                    "amd",
                    str(amd_device.index),
                    label(amd_device.name),
                    label(amd_device.uuid),
                    label(amd_device.gfx_target),
                ],
                1,
            )
    if accelerators.intel is not None:
        for intel_device in accelerators.intel.devices or ():
            family.add_metric(["intel", str(intel_device.index), label(intel_device.name), "", ""], 1)
    return family


def _findings(snapshot: Snapshot) -> Metric:
    family = GaugeMetricFamily(
        "envsnap_findings",
        "Findings of envsnap's rules on this node by rule id and severity (error|warning|info); "
        "the value is how many the rule raised. No series: no such finding.",
        labels=["id", "severity"],
    )
    counts = Counter((finding.id, finding.severity) for finding in snapshot.findings or ())
    for (rule, severity), count in sorted(counts.items()):
        family.add_metric([label(rule), severity], count)
    return family


def _probes(snapshot: Snapshot) -> list[Metric]:
    status = GaugeMetricFamily(
        "envsnap_probe_status",
        "How each probe went in the last capture: 1 on its status (ok|skipped|failed), 0 on the others.",
        labels=["probe", "status"],
    )
    duration = GaugeMetricFamily(
        "envsnap_probe_duration_seconds",
        "How long each probe took in the last capture.",
        labels=["probe"],
        unit="seconds",
    )
    for run in snapshot.meta.probes or ():
        name = label(run.name)
        for each in PROBE_STATUSES:
            status.add_metric([name, each], 1 if run.status == each else 0)
        duration.add_metric([name], run.duration_s)
    return [status, duration]


def captured_at_seconds(captured_at: str) -> float | None:
    """The capture time as Unix seconds, or None when the text is not an ISO 8601 time."""
    try:
        return datetime.fromisoformat(captured_at.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


def _capture(snapshot: Snapshot) -> list[Metric]:
    families: list[Metric] = []
    stamp = captured_at_seconds(snapshot.meta.captured_at)
    if stamp is not None:
        families.append(
            GaugeMetricFamily(
                "envsnap_last_probe_timestamp_seconds",
                "When the stack was last probed (Unix time); stale when the exporter stopped probing.",
                value=stamp,
            )
        )
    if snapshot.packages is not None:
        families.append(
            GaugeMetricFamily(
                "envsnap_packages_installed",
                "Python distributions installed in the probed environment.",
                value=len(snapshot.packages),
            )
        )
    return families


def _drift(drift: Drift) -> list[Metric]:
    changes = GaugeMetricFamily(
        "envsnap_drift_changes",
        "Changes from the known-good snapshot (--against) by impact (breaking|notable|minor) and layer; "
        "every pair is present, 0 when nothing changed there.",
        labels=["impact", "layer"],
    )
    counts = Counter((change.impact, change.layer) for change in drift.changes)
    # telemetry is volatile and never diffed here; a layer the table doesn't know still counts.
    known_layers = [layer for layer in LAYERS if layer != "telemetry"]
    layers = [*known_layers, *sorted({layer for _, layer in counts} - set(known_layers))]
    for impact in IMPACTS:
        for layer in layers:
            changes.add_metric([impact, label(layer)], counts.get((impact, layer), 0))
    known = InfoMetricFamily("envsnap_known_good", "The known-good snapshot drift is measured against.")
    known.add_metric([], {"fingerprint": label(drift.known_good_fingerprint)})
    return [changes, known]


def watch_families(states: Sequence[WatchState]) -> list[Metric]:
    """The verdicts of the processes watched with ``envsnap watch --export`` (none: no families)."""
    if not states:
        return []
    names = ["pid", "process"]
    verdict = GaugeMetricFamily(
        "envsnap_watch_verdict",
        "Fallback verdict of each process watched with `envsnap watch --export`: 1 on its verdict, 0 on the "
        "others (gpu-active|cpu-fallback-suspected|gpu-idle-while-busy|no-accelerator|inconclusive).",
        labels=[*names, "verdict"],
    )
    active = GaugeMetricFamily(
        "envsnap_watch_active",
        "1 while the watch runs, 0 once the process ended or the watch stopped.",
        labels=names,
    )
    updated = GaugeMetricFamily(
        "envsnap_watch_last_update_timestamp_seconds",
        "When the watch last wrote its state (Unix time).",
        labels=names,
    )
    for state in states:
        ident = [str(state.pid), label(state.process)]
        for each in VERDICTS:
            verdict.add_metric([*ident, each], 1 if state.verdict == each else 0)
        active.add_metric(ident, 1 if state.active else 0)
        updated.add_metric(ident, state.updated_at)
    return [verdict, active, updated]


class FamiliesCollector(Collector):
    """A prometheus-client collector that yields families built elsewhere (a cache, or one capture)."""

    def __init__(self, families: Iterable[Metric] = ()) -> None:
        self.families: list[Metric] = list(families)

    def collect(self) -> Iterable[Metric]:
        return list(self.families)


def exposition(families: Iterable[Metric]) -> str:
    """The families in the Prometheus text format (what node_exporter's textfile collector reads)."""
    return generate_latest(FamiliesCollector(families)).decode("utf-8")
