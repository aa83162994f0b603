"""envsnap save / check on a real GPU host: real NVML, a real CUDA build of torch."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from envsnap.snapshot import store
from tests.gpu.conftest import envsnap, keep

pytestmark = pytest.mark.gpu


def test_save_records_the_real_gpus_and_check_reads_them(tmp_path: Path, artifacts: Path | None) -> None:
    done = envsnap("save", "--anonymize", "-o", "gpu-host.yaml", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    path = tmp_path / "gpu-host.yaml"
    snapshot = store.load(path)

    assert snapshot.accelerators is not None
    nvidia = snapshot.accelerators.nvidia
    assert nvidia is not None
    assert nvidia.status == "ok", nvidia.reason
    assert nvidia.driver_version
    assert re.fullmatch(r"\d+\.\d+(\.\d+)?", nvidia.driver_version)
    assert nvidia.cuda_driver_version
    assert re.fullmatch(r"\d+\.\d+", nvidia.cuda_driver_version)
    assert nvidia.devices
    for device in nvidia.devices:
        assert device.name
        assert device.compute_capability
        assert re.fullmatch(r"\d+\.\d+", device.compute_capability)
        assert device.memory_total_bytes
        assert device.memory_total_bytes > 1 << 30
        assert device.pci_bus_id
    assert snapshot.meta.anonymized is True

    assert snapshot.frameworks is not None
    torch = snapshot.frameworks.torch
    assert torch is not None
    assert torch.status == "ok", torch.reason
    assert torch.cuda is not None  # a CUDA build: tests/gpu needs one (conftest)
    assert torch.available is not None
    assert torch.available.cuda is True
    assert torch.devices
    assert len(torch.devices) == len(nvidia.devices)
    assert torch.arch_list

    checked = envsnap("check", str(path), "--json", "--fail-on", "error", cwd=tmp_path)
    assert checked.returncode in (0, 1), checked.stderr
    ids = {finding["id"] for finding in json.loads(checked.stdout)["findings"]}
    assert "cpu-only-build-on-gpu-host" not in ids
    keep(path, artifacts)
