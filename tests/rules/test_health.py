"""gpu-health, on telemetry parsed from real nvidia-smi captures."""

from __future__ import annotations

from envsnap.rules import health
from envsnap.snapshot.model import DeviceSample
from tests.rules.conftest import accelerators, replace, sample, snapshot
from tests.rules.fixtures import A100_MIG, RTX3080, T4, V100S_8X, nvidia_xml


def _snap(name: str, cc: str, samples: tuple[DeviceSample, ...] | None = None) -> object:
    info, recorded = nvidia_xml(name, cc)
    return snapshot(
        accelerators=accelerators(nvidia=info),
        telemetry=sample(*(samples if samples is not None else recorded)),
    )


def test_v100s_host_under_load_power_cap_and_persistence() -> None:
    # The 8× V100S capture: GPUs 3 and 6 at their software power cap, persistence mode disabled.
    found = list(health.telemetry_health(_snap(V100S_8X, "7.0")))  # type: ignore[arg-type]
    assert [(f.severity, f.evidence[0].path) for f in found] == [
        ("info", "telemetry.devices[3].throttle_reasons"),
        ("info", "telemetry.devices[6].throttle_reasons"),
    ]
    assert "software power cap" in found[0].title
    # GPU 6 reports the cap while drawing 68 W of 250 W: the title states both and never claims
    # the GPU "runs at its power limit".
    six = found[1]
    assert "drawing 68 W of its 250 W limit, well below it at capture time" in six.title
    assert "runs at its power limit" not in six.title
    assert [e.path.rsplit(".", 1)[1] for e in six.evidence] == [
        "throttle_reasons",
        "temperature_c",
        "power_draw_watts",
        "power_limit_watts",
    ]
    (persistence,) = health.device_health(_snap(V100S_8X, "7.0"))  # type: ignore[arg-type]
    assert persistence.severity == "info"
    assert "8 data-center GPU(s) (Tesla V100S-PCIE-32GB)" in persistence.title
    assert "nvidia-persistenced" in persistence.fix


def test_idle_gpu_with_a_narrow_link_is_not_judged() -> None:
    # The T4 capture: x8 of x16 while 0 % busy — links downshift at idle.
    assert list(health.telemetry_health(_snap(T4, "7.5"))) == []  # type: ignore[arg-type]


def test_busy_gpu_on_a_degraded_link() -> None:
    # The T4's real x8-of-x16 link, under the 91 % load of the V100 capture (tesla-v100-pcie-32gb).
    _info, recorded = nvidia_xml(T4, "7.5")
    busy = replace(recorded[0], gpu_util_percent=91.0)
    (found,) = health.telemetry_health(_snap(T4, "7.5", (busy,)))  # type: ignore[arg-type]
    assert found.severity == "warning"
    assert "x8 of x16 while 91% busy" in found.title


def test_thermal_and_power_brake_slowdown_are_warnings() -> None:
    _, recorded = nvidia_xml(RTX3080, "8.6")
    hot = replace(recorded[0], throttle_reasons=("hw_thermal_slowdown", "hw_power_brake_slowdown"))
    (found,) = health.telemetry_health(_snap(RTX3080, "8.6", (hot,)))  # type: ignore[arg-type]
    assert found.severity == "warning"
    assert "too hot" in found.title
    assert "power brake" in found.title
    assert any(e.path.endswith("temperature_c") for e in found.evidence)


def test_uncorrectable_ecc_and_pending_retirement() -> None:
    # The A100 capture's counters are 0; flip one counter and the pending-remap flag.
    _, recorded = nvidia_xml(A100_MIG, "8.0")
    bad = replace(recorded[0], ecc_errors_uncorrected=1, remapped_rows_pending=True)
    found = list(health.telemetry_health(_snap(A100_MIG, "8.0", (bad,))))  # type: ignore[arg-type]
    assert [f.severity for f in found] == ["warning", "warning"]
    assert "1 uncorrectable ECC error(s)" in found[0].title
    assert "remapped rows pending" in found[1].title
    assert list(health.telemetry_health(_snap(A100_MIG, "8.0"))) == []  # type: ignore[arg-type]


def test_lost_gpu_is_an_error_once() -> None:
    _, recorded = nvidia_xml(RTX3080, "8.6")
    lost = replace(recorded[0], status="lost", reason="GPU is lost")
    snap = _snap(RTX3080, "8.6", (lost,))
    (found,) = health.telemetry_health(snap)  # type: ignore[arg-type]
    assert found.severity == "error"
    assert "is lost: GPU is lost" in found.title
    info, _ = nvidia_xml(RTX3080, "8.6")
    assert info.devices is not None
    lost_static = replace(info, devices=(replace(info.devices[0], status="lost", reason="GPU is lost"),))
    both = replace(snap, accelerators=accelerators(nvidia=lost_static))
    assert [f.severity for f in health.device_health(both)] == []  # already reported from telemetry
    static_only = snapshot(accelerators=accelerators(nvidia=lost_static))
    assert [f.severity for f in health.device_health(static_only)] == ["error"]


def test_consumer_gpu_without_persistence_is_fine() -> None:
    # RTX 3080 capture: persistence mode disabled, but it is not a data-center GPU.
    assert list(health.device_health(_snap(RTX3080, "8.6"))) == []  # type: ignore[arg-type]
