"""cuda-visible-devices-hides-gpus and mps-cpu-fallback-enabled."""

from __future__ import annotations

import pytest

from envsnap.rules import env_vars as environment
from envsnap.snapshot.model import Host, Meta, MigInstance, Snapshot
from tests.rules.conftest import (
    META,
    accelerators,
    amd,
    env,
    mps,
    nvidia,
    nvidia_device,
    replace,
    snapshot,
    torch,
)
from tests.rules.fixtures import V100S_8X, nvidia_xml

# The real 8× V100S host: its devices and UUIDs as nvidia-smi reported them.
V100S, _ = nvidia_xml(V100S_8X, "7.0")
assert V100S.devices is not None
UUID0, UUID1 = V100S.devices[0].uuid or "", V100S.devices[1].uuid or ""


def _eight(**variables: str) -> Snapshot:
    return snapshot(accelerators=accelerators(nvidia=V100S), environment=env(**variables))


@pytest.mark.parametrize("value", ["", "-1", "8", "NoDevFiles", "GPU-ffffffff"])
def test_values_that_hide_every_gpu(value: str) -> None:
    (found,) = environment.visible_devices(_eight(CUDA_VISIBLE_DEVICES=value))
    assert found.id == "cuda-visible-devices-hides-gpus"
    assert found.severity == "warning"
    assert "hides all 8 GPU(s)" in found.title
    assert "`export CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7` (valid indices 0–7)" in found.fix


def test_invalid_entry_truncates_the_list() -> None:
    (found,) = environment.visible_devices(_eight(CUDA_VISIBLE_DEVICES="0,2,-1,1"))
    assert "entry '-1' is invalid, so only GPU(s) 0, 2 are visible" in found.title


@pytest.mark.parametrize("value", ["0", "0,1,2,3", "7", UUID0, UUID1[:12], f"{UUID1},0"])
def test_valid_lists_are_silent(value: str) -> None:
    assert list(environment.visible_devices(_eight(CUDA_VISIBLE_DEVICES=value))) == []


def test_mig_uuids_are_valid() -> None:
    mig = MigInstance(uuid="MIG-0000000a-0000-0000-0000-000000000000", profile="1g.10gb")
    device = nvidia_device("a100", 0, mig_enabled=True, mig_instances=(mig,))
    snap = snapshot(
        accelerators=accelerators(nvidia=nvidia("a100", devices=(device,))),
        environment=env(CUDA_VISIBLE_DEVICES="MIG-0000000a-0000-0000-0000-000000000000"),
    )
    assert list(environment.visible_devices(snap)) == []


def test_unset_or_no_gpu_is_silent() -> None:
    assert list(environment.visible_devices(_eight())) == []
    no_gpu = snapshot(accelerators=accelerators(), environment=env(CUDA_VISIBLE_DEVICES=""))
    assert list(environment.visible_devices(no_gpu)) == []


def test_anonymized_uuids_are_not_judged() -> None:
    snap = replace(
        _eight(CUDA_VISIBLE_DEVICES=UUID0[:12]),
        meta=Meta(envsnap_version="0.1.0", captured_at=META.captured_at, anonymized=True),
    )
    assert list(environment.visible_devices(snap)) == []


def test_rocm_visibility_variables() -> None:
    snap = snapshot(accelerators=accelerators(amd=amd("mi100", 4)), environment=env(ROCR_VISIBLE_DEVICES="4"))
    (found,) = environment.visible_devices(snap)
    assert "ROCR_VISIBLE_DEVICES='4' hides all 4 GPU(s)" in found.title
    assert (found.source or "").startswith("https://rocm.docs.amd.com/")
    cuda_var = snapshot(
        accelerators=accelerators(amd=amd("mi100", 4)), environment=env(CUDA_VISIBLE_DEVICES="-1")
    )
    assert len(list(environment.visible_devices(cuda_var))) == 1


def test_torch_device_count_is_evidence() -> None:
    snap = replace(_eight(CUDA_VISIBLE_DEVICES=""), frameworks=torch("2.8.0+cu128", "12.8", devices=()))
    (found,) = environment.visible_devices(snap)
    assert any(e.path == "frameworks.torch.devices" and e.value == 0 for e in found.evidence)


def test_mps_fallback_enabled_on_apple_silicon() -> None:
    mac = Host(status="ok", os_id="macos", arch="arm64")
    snap = snapshot(
        host=mac, accelerators=accelerators(mps=mps()), environment=env(PYTORCH_ENABLE_MPS_FALLBACK="1")
    )
    (found,) = environment.mps_fallback(snap)
    assert found.id == "mps-cpu-fallback-enabled"
    assert found.severity == "info"
    assert "warned only once per process" in found.title


def test_mps_fallback_unset_or_irrelevant() -> None:
    assert (
        list(environment.mps_fallback(snapshot(accelerators=accelerators(mps=mps()), environment=env())))
        == []
    )
    linux = snapshot(accelerators=accelerators(), environment=env(PYTORCH_ENABLE_MPS_FALLBACK="1"))
    assert list(environment.mps_fallback(linux)) == []
