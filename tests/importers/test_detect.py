"""Format detection and merging: every supported report format, alone and mixed in one paste."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from envsnap.errors import BadInput
from envsnap.importers.auto import parse_auto
from tests.conftest import DATA, REPO_ROOT

FIXTURES = REPO_ROOT.parent.parent / "shared" / "fixtures"
if not FIXTURES.exists():  # the shared checkout sits next to the worktrees (/work/shared)
    FIXTURES = Path("/work/shared/fixtures")
NOW = "2026-01-01T00:00:00Z"
CAPTURES = FIXTURES / "nvidia-smi" / "captures"


def _section(capture: Path, command: str) -> str:
    """One command's output out of an nvidia_gpu_exporter capture file."""
    text = capture.read_text()
    start = text.index(f"# $ {command}\n")
    body = text[text.index("\n", text.index("\n", start) + 1) + 1 :]
    end = body.find("\n####")
    return body[:end] if end != -1 else body


def test_nvidia_smi_table_with_mig_devices_is_one_gpu() -> None:
    text = _section(CAPTURES / "linux-x86_64__nvidia-h100-mig__590.48.01.txt", "nvidia-smi ")
    snap = parse_auto(text, "t.txt", captured_at=NOW)
    assert snap.meta.origin
    assert snap.meta.origin.sections == ("nvidia-smi",)
    nvidia = snap.accelerators.nvidia if snap.accelerators else None
    assert nvidia is not None
    assert nvidia.driver_version == "590.48.01"
    assert nvidia.cuda_driver_version == "13.1"
    assert nvidia.devices is not None
    assert len(nvidia.devices) == 1
    device = nvidia.devices[0]
    assert device.name == "NVIDIA H100 80GB HBM3"
    assert device.pci_bus_id == "0000:00:09.0"
    assert device.memory_total_bytes == 81559 * 1024 * 1024
    assert device.mig_enabled is True


def test_windows_table_reads_the_driver_model_and_a_cut_name() -> None:
    text = _section(CAPTURES / "windows-x86_64__nvidia-geforce-rtx-2080-super__591.86.txt", "nvidia-smi ")
    snap = parse_auto(text, "t.txt", captured_at=NOW)
    devices = snap.accelerators.nvidia.devices if snap.accelerators and snap.accelerators.nvidia else None
    assert devices is not None
    assert devices[0].name == "NVIDIA GeForce RTX 2080"
    assert devices[0].driver_model == "WDDM"


def test_nvidia_smi_query_text_counts_mig_slices_under_their_gpu() -> None:
    text = _section(CAPTURES / "linux-x86_64__nvidia-h100-mig__590.48.01.txt", "nvidia-smi -q")
    snap = parse_auto(text, "q.txt", captured_at=NOW)
    assert snap.meta.origin
    assert snap.meta.origin.sections == ("nvidia-smi -q",)
    nvidia = snap.accelerators.nvidia if snap.accelerators else None
    assert nvidia is not None
    assert nvidia.devices is not None
    assert nvidia.driver_version == "590.48.01"
    assert nvidia.cuda_driver_version == "13.1"
    assert [d.name for d in nvidia.devices] == ["NVIDIA H100 80GB HBM3"]
    assert nvidia.devices[0].mig_enabled is True
    assert nvidia.devices[0].mig_instances is not None
    assert len(nvidia.devices[0].mig_instances) == 4
    assert nvidia.devices[0].architecture == "Hopper"


def test_nvidia_smi_list_puts_mig_lines_under_the_gpu() -> None:
    text = _section(CAPTURES / "linux-x86_64__nvidia-h100-mig__590.48.01.txt", "nvidia-smi -L")
    snap = parse_auto(text, "l.txt", captured_at=NOW)
    devices = snap.accelerators.nvidia.devices if snap.accelerators and snap.accelerators.nvidia else None
    assert devices is not None
    assert len(devices) == 1
    assert devices[0].mig_instances is not None
    assert [m.profile for m in devices[0].mig_instances] == ["3g.40gb", "2g.20gb", "1g.10gb", "1g.10gb"]


@pytest.mark.parametrize(
    ("fixture", "names", "gfx"),
    [
        ("rocm-smi/radeon-rx6700xt_rocm-6.1.2_drv-6.3.6_telegraf-flags.json", 1, ["gfx1031"]),
        ("rocm-smi/4x-mi100_rocm-6.0.2_drv-6.3.6_telegraf-flags.json", 4, [None] * 4),
        ("amd-smi/mi210_amd-smi-static-json_EXTRACTED.json", 1, ["gfx90a"]),
    ],
)
def test_rocm_and_amd_smi_json(fixture: str, names: int, gfx: list[str | None]) -> None:
    snap = parse_auto((FIXTURES / fixture).read_text(), fixture, captured_at=NOW)
    amd = snap.accelerators.amd if snap.accelerators else None
    assert amd is not None
    assert amd.devices is not None
    assert len(amd.devices) == names
    assert [d.gfx_target for d in amd.devices] == gfx
    assert all(d.name for d in amd.devices)


def test_amd_smi_text_from_the_documented_sample() -> None:
    doc = (FIXTURES / "amd-smi" / "amdsmi-doc_amdsmi_cli_README_rocm-6.3-era_embedded-samples.md").read_text()
    start = doc.index("GPU: 0\n    ASIC:")
    snap = parse_auto(doc[start : start + 3000], "amd.txt", captured_at=NOW)
    assert snap.meta.origin
    assert "amd-smi" in (snap.meta.origin.sections or ())
    amd = snap.accelerators.amd if snap.accelerators else None
    assert amd is not None
    assert amd.devices is not None
    assert amd.devices[0].name == "MI300A"
    assert amd.devices[0].pci_bus_id == "0000:01:00.0"


def test_rocm_smi_text_product_lines() -> None:
    text = (
        "========================= ROCm System Management Interface =========================\n"
        "=================================== Product Info ===================================\n"
        "GPU[0]\t\t: Card series: \t\tNavi 31 [Radeon RX 7900 XT/7900 XTX]\n"
        "GPU[0]\t\t: Card model: \t\t0x744c\n"
        "GPU[0]\t\t: GFX Version: \t\tgfx1100\n"
        "GPU[1]\t\t: Card series: \t\tRaphael\n"
        "GPU[1]\t\t: GFX Version: \t\tgfx1036\n"
        "====================================================================================\n"
    )
    snap = parse_auto(text, "r.txt", captured_at=NOW)
    amd = snap.accelerators.amd if snap.accelerators else None
    assert amd is not None
    assert amd.devices is not None
    assert [(d.index, d.gfx_target) for d in amd.devices] == [(0, "gfx1100"), (1, "gfx1036")]


def test_pip_list_conda_list_and_pip_freeze() -> None:
    text = (
        "Package            Version\n------------------ ------------\ntorch              2.3.1+cu121\n"
        "numpy              1.26.4\n\n"
        "# packages in environment at /home/u/miniconda3/envs/x:\n#\n"
        "# Name                    Version                   Build  Channel\n"
        "pytorch-cuda              12.1                 ha16c6d3_5    pytorch\n"
        "transformers              4.41.2                   pypi_0    pypi\n\n"
        "accelerate==0.31.0\nsafetensors==0.4.3\n"
    )
    snap = parse_auto(text, "p.txt", captured_at=NOW)
    assert snap.meta.origin
    assert snap.meta.origin.sections == ("pip list", "conda list", "pip freeze")
    versions = {p.name: p.version for p in snap.packages or ()}
    assert versions == {
        "torch": "2.3.1+cu121",
        "numpy": "1.26.4",
        "pytorch-cuda": "12.1",
        "transformers": "4.41.2",
        "accelerate": "0.31.0",
        "safetensors": "0.4.3",
    }
    installers = {p.name: p.installer for p in snap.packages or ()}
    assert installers["transformers"] == "pip"
    assert installers["pytorch-cuda"] == "conda"


VLLM_NEW = """\
==============================
        System Info
==============================
OS                           : Ubuntu 22.04.5 LTS (x86_64)
GCC version                  : (Ubuntu 11.4.0-1ubuntu1~22.04) 11.4.0
Libc version                 : glibc-2.35

==============================
       PyTorch Info
==============================
PyTorch version              : 2.7.0+cu126
Is debug build               : False
CUDA used to build PyTorch   : 12.6
ROCM used to build PyTorch   : N/A

==============================
      Python Environment
==============================
Python version               : 3.12.10 (main, Apr  9 2025, 08:55:05) [GCC 11.4.0] (64-bit runtime)

==============================
       CUDA / GPU Info
==============================
Is CUDA available            : True
CUDA runtime version         : 12.8.93
GPU models and configuration :
GPU 0: NVIDIA H100 80GB HBM3
GPU 1: NVIDIA H100 80GB HBM3

Nvidia driver version        : 570.124.06
cuDNN version                : Could not collect

==============================
          CPU Info
==============================
Architecture:                         x86_64
CPU(s):                               224
Model name:                           Intel(R) Xeon(R) Platinum 8480+

==============================
Versions of relevant libraries
==============================
[pip3] numpy==2.2.6
[pip3] torch==2.7.0
[conda] Could not collect

==============================
         vLLM Info
==============================
ROCM Version                 : Could not collect
vLLM Version                 : 0.9.1
vLLM Build Flags:
  CUDA Archs: Not Set; ROCm: Disabled

==============================
     Environment Variables
==============================
NCCL_CUMEM_ENABLE=0
CUDA_VISIBLE_DEVICES=0,1
"""


def test_vllm_new_layout_with_banners_and_aligned_colons() -> None:
    snap = parse_auto(VLLM_NEW, "vllm.txt", captured_at=NOW)
    assert snap.meta.origin
    assert snap.meta.origin.sections == ("collect-env (vLLM)",)
    assert not snap.meta.origin.partial
    torch = snap.frameworks.torch if snap.frameworks else None
    assert torch is not None
    assert torch.version == "2.7.0+cu126"
    assert torch.cuda == "12.6"
    assert snap.toolkits
    assert snap.toolkits.cuda
    assert snap.toolkits.cuda.nvcc_version == "12.8.93"
    nvidia = snap.accelerators.nvidia if snap.accelerators else None
    assert nvidia is not None
    assert nvidia.driver_version == "570.124.06"
    assert [d.name for d in nvidia.devices or ()] == ["NVIDIA H100 80GB HBM3"] * 2
    assert {p.name: p.version for p in snap.packages or ()} == {
        "numpy": "2.2.6",
        "torch": "2.7.0",
        "vllm": "0.9.1",
    }
    assert snap.environment
    assert snap.environment.variables == {
        "NCCL_CUMEM_ENABLE": "0",
        "CUDA_VISIBLE_DEVICES": "0,1",
    }
    assert snap.host
    assert snap.host.cpu_logical_cores == 224
    assert snap.host.libc == "glibc-2.35"


def test_messy_collect_env_hand_edits() -> None:
    text = (
        "pytorch version 2.1.2+cu118\n"
        "Is debug build：False\n"
        "CUDA USED TO BUILD PYTORCH: 11.8\n"
        "OS: Microsoft Windows 11 Pro\n"
        "Python version: 3.10.11 (tags/v3.10.11:7d4cc5a, Apr  5 2023, 00:38:17) [MSC v.1929 64 bit (AMD64)]\n"
        "Is CUDA available: True\n"
        "GPU models and configuration:\n"
        "GPU 0: NVIDIA A100-SXM4-80GB\n"
        "  MIG 3g.40gb     Device  0:\n"
        "  MIG 3g.40gb     Device  1:\n"
        "Nvidia driver version: 537.13\n"
        "cuDNN version: C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v11.8\\bin\\"
        "cudnn_ops_train64_8.dll\n"
        "CPU:\nName: 13th Gen Intel(R) Core(TM) i9-13900K\n\n"
        "Versions of relevant libraries:\n[pip3] torch==2.1.2+cu118\n"
    )
    snap = parse_auto(text, "messy.txt", captured_at=NOW)
    torch = snap.frameworks.torch if snap.frameworks else None
    assert torch is not None
    assert torch.version == "2.1.2+cu118"
    assert torch.cuda == "11.8"
    assert torch.debug is False
    devices = snap.accelerators.nvidia.devices if snap.accelerators and snap.accelerators.nvidia else None
    assert devices is not None
    assert len(devices) == 1, "MIG lines are slices of GPU 0, not more GPUs"
    assert devices[0].mig_enabled is True
    assert devices[0].mig_instances is not None
    assert len(devices[0].mig_instances) == 2
    assert snap.toolkits
    assert snap.toolkits.cudnn
    assert snap.toolkits.cudnn.version == "8"
    assert snap.host
    assert snap.host.cpu_model == "13th Gen Intel(R) Core(TM) i9-13900K"


def test_a_cut_off_report_is_partial_and_names_what_it_lacks() -> None:
    full = (DATA / "collect_env" / "gen2024_torch2.2_cpu_build_on_h100.txt").read_text()
    cut = full[: full.index("CPU:")]
    snap = parse_auto(cut, "cut.txt", captured_at=NOW)
    origin = snap.meta.origin
    assert origin is not None
    assert origin.partial is True
    assert origin.missing == ("CPU", "Versions of relevant libraries")
    assert snap.packages is None, "packages not in the paste are unknown, not an empty list"


def test_a_wrapped_value_is_glued_but_a_following_traceback_is_not() -> None:
    text = (
        "PyTorch version: 2.0.1\nOS: Ubuntu 20.04.6 LTS\n(x86_64)\nNvidia driver version: 470.82.01\n"
        '\nTraceback (most recent call last):\n  File "x.py", line 1\nRuntimeError: boom\n'
    )
    snap = parse_auto(text, "w.txt", captured_at=NOW)
    assert snap.host
    assert snap.host.os_name == "Ubuntu 20.04.6 LTS"
    assert snap.host.arch == "x86_64"
    assert snap.accelerators
    assert snap.accelerators.nvidia
    assert snap.accelerators.nvidia.driver_version == "470.82.01"
    assert snap.meta.origin
    assert "traceback" in (snap.meta.origin.sections or ())


@pytest.mark.parametrize(
    "text",
    ["", "hello world\nthis is just prose\n", "- a\n- b\n", '{"a": 1}', "key: value\nother: 2\n"],
)
def test_text_that_is_no_report_names_the_formats_tried(text: str) -> None:
    with pytest.raises(BadInput) as err:
        parse_auto(text, "x.txt", captured_at=NOW)
    message = str(err.value)
    assert "\n" not in message
    assert re.search(
        r"tried: envsnap snapshot, collect-env \(torch\), .*nvidia-smi.*rocm-smi.*pip list", message
    )


def test_json_that_is_not_amd_is_not_a_report() -> None:
    with pytest.raises(BadInput):
        parse_auto(json.dumps({"card": 1, "gpu_data": "x"}), "j.json", captured_at=NOW)


def test_uv_install_log_and_nvcc_version() -> None:
    text = (
        "root@x:~/proj# uv add onnxruntime-gpu onnxruntime\nInstalled 3 packages in 34ms\n"
        " + numpy==2.2.3\n + onnxruntime==1.20.1\n + onnxruntime-gpu==1.20.1\n"
        "$ nvcc -V\nCuda compilation tools, release 12.4, V12.4.99\n"
    )
    snap = parse_auto(text, "uv.txt", captured_at=NOW)
    assert snap.meta.origin
    assert snap.meta.origin.sections == ("uv install log", "nvcc --version")
    assert {p.name for p in snap.packages or ()} == {"numpy", "onnxruntime", "onnxruntime-gpu"}
    assert snap.toolkits
    assert snap.toolkits.cuda
    assert snap.toolkits.cuda.nvcc_version == "12.4.99"


def test_a_mig_table_fragment_names_its_gpus() -> None:
    text = (
        "| MIG devices:                                                                |\n"
        "|==================+======================+===========+=======================|\n"
        "|  1    3   0   0  |  14366MiB / 19968MiB | 28      0 |  2   0    1    0    0 |\n"
        "|  1    5   0   1  |   9826MiB / 19968MiB | 28      0 |  2   0    1    0    0 |\n"
        "|  2    3   0   0  |  15210MiB / 19968MiB | 28      0 |  2   0    1    0    0 |\n"
    )
    snap = parse_auto(text, "mig.txt", captured_at=NOW)
    devices = snap.accelerators.nvidia.devices if snap.accelerators and snap.accelerators.nvidia else None
    assert devices is not None
    assert [(d.index, len(d.mig_instances or ())) for d in devices] == [(1, 2), (2, 1)]


def test_a_report_starting_mid_way_and_a_glued_header() -> None:
    full = (DATA / "collect_env" / "gen2024_torch2.2_cpu_build_on_h100.txt").read_text()
    tail = full[full.index("Python version:") :]
    snap = parse_auto(tail, "tail.txt", captured_at=NOW)
    assert snap.meta.origin
    assert snap.meta.origin.partial is True
    assert snap.meta.origin.missing == ("PyTorch version",)
    # torch's own lines are cut off: not "not installed"; its build comes from the [pip3] torch==...+cpu line
    assert snap.frameworks
    assert snap.frameworks.torch
    assert snap.frameworks.torch.status == "ok"
    assert snap.frameworks.torch.version == "2.2.1+cpu"
    glued = full.replace(
        "Collecting environment information...\n", "Collecting environment information...   "
    )
    assert glued != full
    torch = parse_auto(glued, "glued.txt", captured_at=NOW).frameworks
    assert torch
    assert torch.torch
    assert torch.torch.version == "2.2.1+cpu"


def test_a_pip_list_without_its_header_needs_a_long_run() -> None:
    rows = [f"package{i}          1.{i}.0" for i in range(10)]
    snap = parse_auto("\n".join(rows), "list.txt", captured_at=NOW)
    assert len(snap.packages or ()) == 10
    with pytest.raises(BadInput):
        parse_auto("\n".join(rows[:3]), "short.txt", captured_at=NOW)


@pytest.mark.parametrize("capture", sorted(p.name for p in CAPTURES.glob("*.txt")))
def test_every_real_nvidia_smi_capture_is_one_machine(capture: str) -> None:
    """A capture holds the table, -q and -L (twice: idle and loaded): one GPU, its full name, no packages."""
    snap = parse_auto((CAPTURES / capture).read_text(), capture, captured_at=NOW)
    assert snap.meta.origin
    assert snap.meta.origin.sections == ("nvidia-smi -q", "nvidia-smi -L", "nvidia-smi")
    nvidia = snap.accelerators.nvidia if snap.accelerators else None
    assert nvidia is not None
    assert nvidia.driver_version == capture.rsplit("__", 1)[1].removesuffix(".txt")
    assert nvidia.cuda_driver_version
    assert nvidia.devices is not None
    assert len(nvidia.devices) == 1
    assert nvidia.devices[0].name
    assert not nvidia.devices[0].name.endswith("...")
    model = capture.split("__")[1].removesuffix("-mig")  # "nvidia-h100-mig" names the model "nvidia-h100"
    assert nvidia.devices[0].name.lower().replace(" ", "-").startswith(model)
    assert snap.packages is None


def test_rocm_smi_concise_table_of_partitions() -> None:
    text = (
        "Device  Node  IDs              Temp        Power     Partitions          SCLK     MCLK     Fan  Perf"
        "    PwrCap   VRAM%  GPU%\n"
        "              (DID,     GUID)  (Junction)  (Socket)  (Mem, Compute, ID)\n"
        "=" * 40 + "\n"
        "0       2     0x75a0,   24959  60.0°C      319.0W    NPS1, DPX, 0        "
        "2203Mhz  1900Mhz  0%   manual  1000.0W  0%     0%\n"
        "1       3     0x75a0,   20862  N/A         N/A       N/A, N/A, 1         N/A      N/A      0%   n/a"
        "     N/A      0%     N/A\n" + "=" * 40 + "\n"
    )
    snap = parse_auto(text, "concise.txt", captured_at=NOW)
    amd = snap.accelerators.amd if snap.accelerators else None
    assert amd is not None
    assert [(d.index, d.device_id) for d in amd.devices or ()] == [(0, "0x75a0"), (1, "0x75a0")]


def test_a_python_session_pins_the_torch_build_only_when_it_says_it() -> None:
    table = "| NVIDIA-SMI 535.54.03     Driver Version: 535.54.03    CUDA Version: 12.2     |\n"
    session = ">>> import torch\n>>> torch.__version__\n'2.0.1+cpu'\n>>> torch.cuda.is_available()\nFalse\n"
    snap = parse_auto(table + session, "s.txt", captured_at=NOW)
    torch = snap.frameworks.torch if snap.frameworks else None
    assert torch is not None
    assert torch.version == "2.0.1+cpu"
    assert torch.cuda is None
    ipython = "In [2]: torch.__version__\nOut[2]: '2.1.0'\nIn [3]: print(torch.version.cuda)\n12.1\n"
    frameworks = parse_auto(table + ipython, "s.txt", captured_at=NOW).frameworks
    assert frameworks is not None
    assert frameworks.torch is not None
    assert (frameworks.torch.version, frameworks.torch.cuda) == ("2.1.0", "12.1")
    bare = ">>> torch.__version__\n'2.0.1'\n"
    assert parse_auto(table + bare, "s.txt", captured_at=NOW).frameworks is None, (
        "a bare version names no build"
    )
