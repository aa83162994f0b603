"""The Overview's layer rows: badges from section status, raised by findings, loading from progress."""

from __future__ import annotations

import msgspec
import pytest

from envsnap.snapshot.model import AmdInfo, Evidence, Finding, ProbeRun
from envsnap.tui.overview_rows import finding_layers, layer_of_path, layer_rows
from tests.fakes.fake_telemetry import v100_host
from tests.tui.conftest import host_snapshot, recorded_findings


@pytest.mark.parametrize(
    ("path", "layer"),
    [
        ("frameworks.torch.cuda", "torch"),
        ("frameworks.jax.version", "frameworks"),
        ("accelerators.nvidia.driver_version", "nvidia"),
        ("accelerators.amd.devices[0].gfx_target", "amd"),
        ("toolkits.cuda.version", "cuda"),
        ("toolkits.hip.version", "rocm"),
        ("packages", "python"),
        ("environment.variables.CUDA_HOME", "python"),
        ("telemetry.devices", None),
    ],
)
def test_layer_of_path(path: str, layer: str | None) -> None:
    assert layer_of_path(path) == layer


def test_rows_of_the_v100_host() -> None:
    rows = {row.key: row for row in layer_rows(host_snapshot(v100_host(), recorded_findings()))}
    # Intel, MPS, ROCm and other frameworks are not on this host: their rows are left out.
    assert list(rows) == ["host", "python", "nvidia", "amd", "cuda", "torch", "extensions"]
    assert rows["host"].badge == "ok"
    assert rows["python"].badge == "ok"
    # The CPU-only torch has evidence in the torch and NVIDIA layers, so both carry its error; the
    # toolkit the driver can't run raises the CUDA toolkit's row to a warning.
    assert rows["nvidia"].badge == "error"
    assert rows["torch"].badge == "error"
    assert rows["cuda"].badge == "warning"
    assert rows["cuda"].reason is not None
    assert rows["cuda"].reason.startswith("the CUDA 13.0 toolkit builds programs driver 460.73.01 cannot run")
    assert rows["amd"].badge == "absent"
    assert rows["amd"].summary == "not probed"


def test_a_layer_an_imported_report_does_not_mention_is_not_in_the_report() -> None:
    import msgspec

    from envsnap.snapshot.model import Origin

    probed = host_snapshot(v100_host())
    imported = msgspec.structs.replace(
        probed, meta=msgspec.structs.replace(probed.meta, origin=Origin(kind="import", format="auto"))
    )
    rows = {row.key: row for row in layer_rows(imported)}
    assert rows["amd"].summary == "not in the report"


def test_a_finding_never_lowers_a_badge() -> None:
    snapshot = host_snapshot(v100_host())
    assert snapshot.accelerators is not None
    failed = AmdInfo(status="failed", reason="amdsmi: AMDSMI_STATUS_DRIVER_NOT_LOADED")
    snapshot = msgspec.structs.replace(
        snapshot,
        accelerators=msgspec.structs.replace(snapshot.accelerators, amd=failed),
        findings=(
            Finding(
                id="amd-info",
                severity="warning",
                title="a warning about AMD",
                evidence=(Evidence(path="accelerators.amd"),),
                fix="none",
            ),
        ),
    )
    rows = {row.key: row for row in layer_rows(snapshot)}
    assert rows["amd"].badge == "error"
    assert rows["amd"].reason == "amdsmi: AMDSMI_STATUS_DRIVER_NOT_LOADED"


def test_finding_layers_groups_by_evidence() -> None:
    grouped = finding_layers(recorded_findings())
    assert sorted(grouped) == ["cuda", "nvidia", "torch"]
    assert [f.id for f in grouped["nvidia"]] == [
        "cpu-only-build-on-gpu-host",
        "driver-too-old-for-cuda-toolkit",
        "gpu-health",
    ]


def test_loading_rows_fill_in_from_probe_progress() -> None:
    runs = {
        "nvidia": ProbeRun(
            name="nvidia", status="skipped", duration_s=0.03, reason="libnvidia-ml.so.1 not found"
        ),
        "python": ProbeRun(name="python", status="ok", duration_s=0.05),
    }
    rows = {row.key: row for row in layer_rows(None, runs)}
    assert rows["host"].badge == "loading"
    assert rows["host"].summary == "probing…"
    assert rows["python"].badge == "ok"
    assert rows["python"].summary == "probed in 0.05 s"
    assert rows["nvidia"].badge == "absent"
    assert rows["nvidia"].reason == "libnvidia-ml.so.1 not found"
