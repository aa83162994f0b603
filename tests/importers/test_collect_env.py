"""collect_env reports of every generation, as pasted, become snapshots that say only what they know.

The reports in tests/data/collect_env are written for these tests from the script's templates
(compat-rules.md A.2: the 2019, 2021, 2023-24 and 2.14 label sets); device names, driver and
toolkit versions are real products and releases.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from envsnap.errors import BadInput
from envsnap.importers import collect_env, parse_report
from envsnap.snapshot.model import Snapshot
from tests.conftest import DATA

REPORTS = DATA / "collect_env"


def load(name: str) -> Snapshot:
    text = (REPORTS / name).read_text(encoding="utf-8")
    return parse_report("collect-env", text, name, captured_at="2026-11-29T12:00:00Z")


def test_2019_yes_no_booleans_and_multi_gpu_block() -> None:
    snap = load("gen2019_torch1.2_cuda10.txt")
    assert snap.frameworks
    assert snap.frameworks.torch
    torch = snap.frameworks.torch
    assert (torch.version, torch.cuda, torch.debug) == ("1.2.0", "10.0.130", False)
    assert torch.available
    assert torch.available.cuda is True
    assert snap.accelerators
    assert snap.accelerators.nvidia
    nvidia = snap.accelerators.nvidia
    assert nvidia.driver_version == "418.87.00"
    assert [(d.index, d.name) for d in nvidia.devices or ()] == [
        (0, "GeForce GTX 1080 Ti"),
        (1, "GeForce GTX 1080 Ti"),
    ]
    assert snap.python
    assert snap.python.version == "3.7"
    assert snap.toolkits
    assert snap.toolkits.cudnn
    assert snap.toolkits.cudnn.version == "7.6.2"
    assert snap.host
    assert snap.host.os_name == "Ubuntu 18.04.3 LTS"
    assert snap.host.arch is None


def test_nvcc_is_the_toolkit_not_the_framework_runtime() -> None:
    snap = load("gen2021_torch1.10_nvcc_minor_mismatch.txt")
    assert snap.toolkits
    assert snap.toolkits.cuda
    assert (snap.toolkits.cuda.nvcc_version, snap.toolkits.cuda.version) == ("11.1.105", "11.1")
    assert snap.frameworks
    assert snap.frameworks.torch
    assert snap.frameworks.torch.cuda == "11.3"
    # "Probably one of the following:" lists several files; the version comes from the names.
    assert snap.toolkits.cudnn
    assert snap.toolkits.cudnn.version == "8.2.4"
    assert snap.host
    assert snap.host.kernel == "5.11.0-40-generic"
    assert snap.host.libc == "glibc-2.31"


def test_cpu_build_on_a_gpu_host() -> None:
    snap = load("gen2024_torch2.2_cpu_build_on_h100.txt")
    assert snap.frameworks
    assert snap.frameworks.torch
    assert snap.frameworks.torch.cuda is None
    assert snap.frameworks.torch.version == "2.2.1+cpu"
    assert snap.accelerators
    assert snap.accelerators.nvidia
    assert snap.accelerators.nvidia.devices
    assert snap.accelerators.nvidia.devices[0].name == "NVIDIA H100 80GB HBM3"
    assert snap.host
    assert (snap.host.cpu_model, snap.host.cpu_physical_cores, snap.host.cpu_logical_cores) == (
        "Intel(R) Xeon(R) Platinum 8480+",
        26,
        52,
    )


def test_latest_generation_with_allocator_config_and_xpu_line() -> None:
    snap = load("gen2026_torch2.14_cu130_old_driver.txt")
    assert snap.environment
    assert snap.environment.variables == {"PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True"}
    assert snap.frameworks
    assert snap.frameworks.torch
    assert snap.frameworks.torch.available
    assert snap.frameworks.torch.available.xpu is False
    assert snap.toolkits is None  # "CUDA runtime version: Could not collect": no toolkit, nothing guessed
    assert {p.name for p in snap.packages or ()} == {
        "numpy",
        "nvidia-cudnn-cu13",
        "nvidia-nccl-cu13",
        "torch",
        "triton",
    }
    assert snap.accelerators
    assert snap.accelerators.nvidia
    assert len(snap.accelerators.nvidia.devices or ()) == 2


def test_rocm_report() -> None:
    snap = load("gen2025_torch2.6_rocm_mi250.txt")
    assert snap.frameworks
    assert snap.frameworks.torch
    torch = snap.frameworks.torch
    assert (torch.cuda, torch.hip, torch.miopen) == (None, "6.2.41134-65d174c3e", "3.2.0")
    assert snap.accelerators
    assert snap.accelerators.nvidia is None
    assert snap.accelerators.amd
    assert snap.accelerators.amd.devices
    device = snap.accelerators.amd.devices[0]
    assert (device.name, device.gfx_target) == ("AMD Instinct MI250X/MI250", "gfx90a")
    conda = [p for p in snap.packages or () if p.installer == "conda"]
    assert [(p.name, p.version) for p in conda] == [("mkl", "2023.1.0")]  # numpy: the pip copy came first


def test_windows_markdown_paste_with_crlf_indent_and_wrapped_line() -> None:
    snap = load("gen2024_windows_markdown_rtx5090_cu124.txt")
    assert snap.python
    assert snap.python.version == "3.11.9"
    assert snap.accelerators
    assert snap.accelerators.nvidia
    assert snap.accelerators.nvidia.driver_version == "572.16"
    assert snap.toolkits
    assert snap.toolkits.cudnn
    assert snap.toolkits.cudnn.version == "8"
    assert snap.host
    assert snap.host.cpu_model == "AMD Ryzen 9 9950X 16-Core Processor"
    assert snap.meta.origin
    assert (snap.meta.origin.kind, snap.meta.origin.format) == ("import", "collect-env")


@pytest.mark.parametrize("name", sorted(p.name for p in REPORTS.glob("*.txt")))
def test_half_a_report_is_refused_as_truncated(name: str) -> None:
    lines = (REPORTS / name).read_text(encoding="utf-8").splitlines()
    half = "\n".join(lines[: len(lines) // 2])
    with pytest.raises(BadInput, match="looks truncated"):
        collect_env.parse(half, name)
    partial = collect_env.parse(half, name, allow_partial=True)
    assert partial.frameworks
    assert partial.frameworks.torch
    assert partial.frameworks.torch.version


def test_text_that_is_not_a_report() -> None:
    with pytest.raises(BadInput, match="not a collect_env report"):
        collect_env.parse("hello\nworld\n", "x.txt")


def test_torch_not_installed() -> None:
    text = "PyTorch version: N/A\nIs debug build: N/A\nVersions of relevant libraries:\n[pip3] numpy==2.0.0\n"
    sections = collect_env.parse(text)
    assert sections.frameworks
    assert sections.frameworks.torch
    assert sections.frameworks.torch.status == "skipped"


def test_every_report_round_trips_through_the_store(tmp_path: Path) -> None:
    from envsnap.snapshot import store
    from envsnap.snapshot.finalize import finalize

    for path in REPORTS.glob("*.txt"):
        snap = finalize(load(path.name))
        assert store.load(store.save(snap, tmp_path / f"{path.stem}.yaml")) == snap
