"""Readers and checks fixed after blind batch 17: each test is a real excerpt from the thread it names,
with its limits (what must still not be read) and twins (the same shape said another way)."""

from __future__ import annotations

import pytest
from packaging.version import Version

from envsnap.importers import evidence
from envsnap.rules import wheels
from envsnap.snapshot.model import Snapshot
from tests.rules.pasted import findings_of, kinds_of, snapshot_of

DRIVER_OLD = ("driver-too-old-for-cuda-build", "error")
ARCH = ("arch-not-in-build", "error")
COMPANION = ("companion-version-mismatch", "error")
DUPLICATE = ("duplicate-distributions", "warning")


def packages_of(snapshot: Snapshot) -> dict[str, str]:
    return {p.name: p.version for p in snapshot.packages or ()}


# ------------------------------------------------ torch's "driver too old" quoted without its number

VERTEX = """The default version was cu121, which didn't work and failed (RuntimeError: The NVIDIA driver on \
your system is too old) in this cell:

```
import torch
print("PyTorch Version:", torch.__version__)
```
PyTorch Version: 2.1.2+**cu121**
"""
"""GoogleCloudPlatform/vertex-ai-samples#2655 (cut to the lines that matter)."""


def test_driver_too_old_without_found_version_is_torchs_own_cause() -> None:
    assert "driver-too-old" in kinds_of(VERTEX)
    assert DRIVER_OLD in findings_of(VERTEX)


def test_the_found_version_form_still_gives_the_driver_number() -> None:
    text = "RuntimeError: The NVIDIA driver on your system is too old (found version 10020).\n"
    snapshot = snapshot_of(text)
    nvidia = snapshot.accelerators.nvidia if snapshot.accelerators else None
    assert nvidia is not None
    assert nvidia.cuda_driver_version == "10.2"
    assert kinds_of(text).count("driver-too-old") == 1


@pytest.mark.parametrize(
    "text",
    [
        "Your NVIDIA driver is too old for this game, please update it.\ntorch 2.1.2+cu121\n",
        "The AMD driver on your system is too old\ntorch 2.1.2+cu121\n",
    ],
)
def test_other_driver_complaints_are_not_torchs(text: str) -> None:
    assert "driver-too-old" not in kinds_of(text)
    assert DRIVER_OLD not in findings_of(text)


# --------------------------------------- "Minimum and Maximum cuda capability" (torch >= 2.8 wording)

GB10 = """Just pulled the latest update and did a build and saw this message in the runtime log -

```
Found GPU0 NVIDIA GB10 which is of cuda capability 12.1. Minimum and Maximum cuda capability supported \
by this version of PyTorch is (8.0) - (12.0)
```
"""
"""eugr/spark-vllm-docker#15: the maintainer answers "you can safely ignore it" (sm_121 runs sm_120 code)."""

GTX1070 = """ich habe hier eine GTX 1070 mit 8GB RAM, beim Start deines Images bekomme ich folgende Warnung:

Found GPU0 NVIDIA GeForce GTX 1070 which is of cuda capability 6.1.
Minimum and Maximum cuda capability supported by this version of PyTorch is
(7.0) - (12.0)
"""
"""Johnson145/voxtral_wyoming#3 (German): below the minimum, the build has no kernels for it."""


def test_a_gpu_one_minor_above_the_maximum_runs_the_builds_kernels() -> None:
    assert kinds_of(GB10) == ["gpu-newer-minor"]
    assert ARCH not in findings_of(GB10)
    devices = snapshot_of(GB10).accelerators
    assert devices is not None
    assert devices.nvidia is not None
    assert [d.compute_capability for d in devices.nvidia.devices or ()] == ["12.1"]


def test_a_gpu_below_the_minimum_is_still_not_in_the_build() -> None:
    assert kinds_of(GTX1070) == ["gpu-too-old"]
    assert ARCH in findings_of(GTX1070)


@pytest.mark.parametrize(
    ("cc", "range_", "judged"),
    [
        ("12.1", "(8.0) - (12.0)", False),
        ("8.9", "(5.0) - (8.6)", False),
        ("12.0", "(7.0) - (9.0)", True),  # a newer major: no kernels for it
        ("10.0", "(7.5) - (9.0)", True),
        ("6.1", "(7.0) - (12.0)", True),
    ],
)
def test_the_range_is_judged_by_major(cc: str, range_: str, judged: bool) -> None:
    text = (
        f"Found GPU0 NVIDIA Test GPU which is of cuda capability {cc}.\n"
        f"Minimum and Maximum cuda capability supported by this version of PyTorch is\n{range_}\n"
    )
    assert (ARCH in findings_of(text)) is judged


def test_the_old_warning_without_a_range_is_judged_as_before() -> None:
    text = (
        "Found GPU0 GeForce GTX 670M which is of cuda capability 2.1.\n"
        "PyTorch no longer supports this GPU because it is too old.\n"
    )
    assert ARCH in findings_of(text)


# --------------------------------------------------------------- pip list rows run together on a line

ORT_20656 = """### ONNX Runtime Version or Commit ID

onnxruntime               1.17.3 onnxruntime-gpu           1.17.1

### Execution Provider Library Version

CUDA 12.4
"""
"""microsoft/onnxruntime#20656: the template field holds two pip list rows joined."""


def test_rows_run_together_are_each_read() -> None:
    packages = packages_of(snapshot_of(ORT_20656))
    assert packages["onnxruntime"] == "1.17.3"
    assert packages["onnxruntime-gpu"] == "1.17.1"
    assert DUPLICATE in findings_of(ORT_20656)


def test_three_rows_run_together() -> None:
    text = "torch   2.1.0 torchvision   0.16.0 torchaudio   2.1.0\n"
    read = [(f.kind, f.detail, f.value) for f in evidence.read(text)]
    assert read == [
        ("torch", "", "2.1.0"),
        ("package", "torchvision", "0.16.0"),
        ("package", "torchaudio", "2.1.0"),
    ]


@pytest.mark.parametrize(
    "line",
    [
        "onnxruntime   1.17.3 on Windows 11 with CUDA 12.4",  # a row, then prose
        "onnxruntime   1.17.3 mypackage   2.0.1",  # the next name is no known package
        "onnxruntime   1.17.3 onnxruntime-gpu latest",  # no version after the name
    ],
)
def test_only_whole_runs_of_known_rows_add_rows(line: str) -> None:
    packages = packages_of(snapshot_of(line + "\n"))
    assert packages == {"onnxruntime": "1.17.3"}


# ------------------------------------------------------- a release series written with a wildcard

WAN2GP = """`pip install torch==2.10.0 torchvision torchaudio --index-url https://download.pytorch.org/whl/cu130`

On Ubuntu 24.04, this results in torchaudio 2.11.x being installed, which appears to be incompatible with \
torch 2.10.0.
"""
"""deepbeepmeep/Wan2GP#1701 (cut): torchaudio 2.11 needs torch >= 2.11 (torchaudio's compatibility matrix)."""


def test_a_wildcard_series_is_the_packages_release() -> None:
    assert packages_of(snapshot_of(WAN2GP))["torchaudio"] == "2.11"
    assert COMPANION in findings_of(WAN2GP)


def test_the_matching_series_is_no_mismatch() -> None:
    text = WAN2GP.replace("2.11.x", "2.10.x")
    assert packages_of(snapshot_of(text))["torchaudio"] == "2.10"
    assert COMPANION not in findings_of(text)


@pytest.mark.parametrize(
    "line",
    [
        "I use torch 2.10.x on my box",  # torch's own patterns decide about torch (a bare version)
        "mylib 2.11.x is broken",  # not a known package
        "torchaudio 2.11.xyz",  # no wildcard
        "see docs/torchaudio 2.11.x.html",  # part of a longer token
    ],
)
def test_a_wildcard_is_read_only_for_known_companions(line: str) -> None:
    facts = [f for f in evidence.read(line + "\n") if f.kind == "package"]
    assert facts == []


def test_torchaudio_2_10_pairs_with_torch_2_10() -> None:
    released = "[pip3] torch==2.10.0\n[pip3] torchaudio==2.11.0\n"
    assert COMPANION in findings_of(released)
    assert COMPANION not in findings_of(released.replace("2.11.0", "2.10.0"))


# ------------------------------------------------------------------ nightlies of the same night

NIGHTLY = """[pip3] torch==2.10.0.dev20251008
[pip3] torchaudio==2.8.0.dev20251008
[pip3] torchvision==0.25.0.dev20251008
"""
"""pytorch/pytorch#164943's list: torchaudio's nightlies still said 2.8.0.dev beside torch 2.10.0.dev."""


def test_companions_of_the_same_nightly_are_not_judged_by_the_release_table() -> None:
    assert COMPANION not in findings_of(NIGHTLY)


def test_nightlies_months_apart_are_still_judged() -> None:
    text = NIGHTLY.replace("torchaudio==2.8.0.dev20251008", "torchaudio==2.8.0.dev20250501")
    assert COMPANION in findings_of(text)


@pytest.mark.parametrize(
    ("torch", "companion", "same"),
    [
        ("2.10.0.dev20251008", "2.8.0.dev20251008", True),
        ("2.10.0.dev20251008", "2.8.0.dev20251001", True),
        ("2.10.0.dev20251008", "2.8.0.dev20250920", False),
        ("2.10.0.dev20251008", "2.8.0", False),  # a released companion
        ("2.10.0a0+git1234", "2.8.0.dev20251008", False),  # a source build has no date
        ("2.10.0.dev1", "2.8.0.dev1", False),  # a dev number that is no date
    ],
)
def test_same_nightly_needs_two_dates_a_week_apart_at_most(torch: str, companion: str, same: bool) -> None:
    assert wheels._same_nightly(Version(torch), Version(companion)) is same


# ---------------------------------------------------------------- tf.sysconfig.get_build_info()

TF_BUILD = """With the latest commit the sysconfig.build_info prints (for 11.2 build):

```
OrderedDict([('cpu_compiler',
              '/home/conda/feedstock_root/build_artifacts/tensorflow-split_1635580013918/_build_env/bin/x86_64-conda-linux-gnu-gcc'),
             ('cuda_version', '11.2'),
             ('cudnn_version', '8'),
             ('is_cuda_build', True),
             ('is_rocm_build', False),
             ('is_tensorrt_build', False)])
```
"""
"""conda-forge/tensorflow-feedstock#157 (the compute-capability list cut)."""


def tf_build_of(text: str) -> dict[str, str] | None:
    frameworks = snapshot_of(text).frameworks
    tf = frameworks.tensorflow if frameworks is not None else None
    return tf.build_info if tf is not None else None


def test_tf_build_info_pairs_are_read() -> None:
    assert tf_build_of(TF_BUILD) == {
        "cuda_version": "11.2",
        "cudnn_version": "8",
        "is_cuda_build": "True",
        "is_rocm_build": "False",
    }


def test_the_dict_form_on_one_line_and_the_driver_check_reads_it() -> None:
    text = (
        "tensorflow   2.15.0\n"
        "{'cpu_compiler': '/usr/bin/gcc', 'cuda_compute_capabilities': ['sm_50', 'sm_90'], "
        "'cuda_version': '12.2', 'cudnn_version': '8', 'is_cuda_build': True, 'is_rocm_build': False}\n"
        "| NVIDIA-SMI 470.82.01    Driver Version: 470.82.01    CUDA Version: 11.4     |\n"
    )
    assert tf_build_of(text) is not None
    found = findings_of(text)
    assert any(rule == "driver-too-old-for-cuda-build" for rule, _ in found)


@pytest.mark.parametrize(
    "line",
    [
        "{'cuda_version': '64_112', 'cudnn_version': '64_8', 'msvcp_dll_names': 'msvcp140.dll'}",  # Windows
        "cuda_version = 11.2",  # not Python's repr
        "('cuda_version', None)",
    ],
)
def test_no_version_is_read_from_other_build_info_shapes(line: str) -> None:
    facts = [f for f in evidence.read(line + "\n") if f.kind == "tf-build" and f.detail != "is_cuda_build"]
    assert facts == []
