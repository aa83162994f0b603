"""Readers and checks fixed after blind batch 16: each test is a real excerpt from the thread it names,
with its limits (what must still not be read) and twins (the same shape said another way)."""

from __future__ import annotations

import pytest

from envsnap.errors import BadInput
from envsnap.rules import evaluate
from envsnap.snapshot.finalize import finalize
from envsnap.snapshot.model import Snapshot
from tests.rules.pasted import findings_of, snapshot_of

NVCC_INFO = ("nvcc-torch-cuda-mismatch", "info")
COMPANION = ("companion-version-mismatch", "error")


def nvcc_of(text: str) -> str | None:
    toolkits = snapshot_of(text).toolkits
    return toolkits.cuda.version if toolkits is not None and toolkits.cuda is not None else None


def torch_version_of(snapshot: Snapshot) -> str | None:
    torch = snapshot.frameworks.torch if snapshot.frameworks else None
    return torch.version if torch is not None else None


# ------------------------------------------------------------ what nvcc answered, said in a sentence

STUDIO_LAB = """!nvidia-smi shows CUDA 12.2, but !nvcc -V shows 11.2 CUDA Compiler version

I was trying to install flash-attn for ComfyUI-ExLlama-Nodes, but i was greeted with this error:
```
    torch.__version__  = 2.1.0+cu118

    Traceback (most recent call last):
      File "<string>", line 1, in <module>
      File "/tmp/pip-install-jlkcxk9h/flash-attn_abe85aae80da4140845572141db7a95a/setup.py", line 114, in \
<module>
        raise RuntimeError(
    RuntimeError: FlashAttention is only supported on CUDA
```
"""
"""aws/studio-lab-examples#250 (the title is the first line; flash-attn's setup prints torch's version)."""


def test_nvcc_said_in_a_sentence_is_the_toolkit() -> None:
    assert nvcc_of(STUDIO_LAB) == "11.2"
    assert NVCC_INFO in findings_of(STUDIO_LAB)


@pytest.mark.parametrize(
    ("sentence", "nvcc"),
    [
        ("my nvcc --version says 12.1 and torch is fine", "12.1"),
        ("nvcc version is 11.8.89 on this box", "11.8"),
        ("but nvcc -V shows release 12.4, V12.4.99", "12.4"),
        ("`nvcc -V` gives CUDA 11.7", "11.7"),
    ],
)
def test_other_sentences_telling_the_nvcc_answer(sentence: str, nvcc: str) -> None:
    assert nvcc_of(f"{sentence}\ntorch.__version__ = 2.1.0+cu118\n") == nvcc


@pytest.mark.parametrize(
    "sentence",
    [
        "!nvidia-smi shows CUDA 12.2",  # the driver's CUDA, not the compiler
        "nvcc: none, torch is 2.1",  # words between nvcc and the number are not the fixed ones
        "nvcc -V shows nothing, torch is 2.1.0",
        "nvcc is 11.2.1.3",  # four parts: no toolkit version
        "nvcc is missing but CUDA 12.1 is installed",
    ],
)
def test_sentences_that_do_not_give_nvcc(sentence: str) -> None:
    assert nvcc_of(f"{sentence}\ntorch.__version__ = 2.1.0+cu118\n") is None


# ------------------------------------------------------------ torch pinned under its conda name

DEEPSPEED = """I am getting `nvcc missing` when executing `ds_report` instruction
But `nvcc --version` can print the following information:
```
nvcc: NVIDIA (R) Cuda compiler driver
Copyright (c) 2005-2021 NVIDIA Corporation
Built on Mon_May__3_19:15:13_PDT_2021
Cuda compilation tools, release 11.3, V11.3.109
Build cuda_11.3.r11.3/compiler.29920130_0
```
`nvidia-smi` shows：
```
NVIDIA-SMI 470.129.06   Driver Version: 470.129.06   CUDA Version: 11.4
```
My environment is `pytorch==1.7.1+cu110` and `deepspeed==0.6.5`
"""
"""deepspeedai/DeepSpeed#2055."""


def test_a_pytorch_pin_is_torch() -> None:
    snapshot = snapshot_of(DEEPSPEED)
    assert torch_version_of(snapshot) == "1.7.1+cu110"
    assert NVCC_INFO in findings_of(DEEPSPEED)


def test_a_conda_install_pin_of_pytorch_is_torch_too() -> None:
    # Twin: conda's own spelling in an install line.
    text = "conda install pytorch==1.12.1 torchvision==0.13.1 cudatoolkit=11.3 -c pytorch\nPython 3.9.7\n"
    assert torch_version_of(snapshot_of(text)) == "1.12.1"


@pytest.mark.parametrize(
    "line", ["[pip3] pytorch-lightning==1.6.3", "mypytorch==1.7.1", "pytorch_memlab==0.2.4"]
)
def test_other_names_around_pytorch_are_not_torch(line: str) -> None:
    snapshot = snapshot_of(f"{line}\nPython 3.9.7\n")
    assert torch_version_of(snapshot) is None
    assert "torch" not in [p.name for p in snapshot.packages or ()]


# ------------------------------------------------------------ sw_vers (macOS)

MPS_MAC = """Is there a way to run the recently released PyTorch 2.5.1 with MPS enabled without upgrading \
the MacOS?

```bash
RuntimeError: The MPS backend is supported on MacOS 12.3+.
Current OS version can be queried using `sw_vers`.

>> sw_vers
ProductName:\tmacOS
ProductVersion:\t12.7.6
BuildVersion:\t21H1320
```
"""
"""pytorch/pytorch#139425 (was refused: nothing in it was read)."""


def test_sw_vers_gives_the_macos_version() -> None:
    snapshot = snapshot_of(MPS_MAC)
    assert snapshot.host is not None
    assert snapshot.host.os_name == "macOS 12.7.6"
    assert findings_of(MPS_MAC) == set()


def test_older_sw_vers_names_mac_os_x() -> None:
    # Twin: macOS 10.x's sw_vers says "Mac OS X".
    snapshot = snapshot_of("ProductName:    Mac OS X\nProductVersion: 10.15.7\nBuildVersion:   19H2\n")
    assert snapshot.host is not None
    assert snapshot.host.os_name == "macOS 10.15.7"


@pytest.mark.parametrize(
    "text",
    [
        "ProductVersion:\t12.7.6\nBuildVersion:\t21H1320\n",  # no ProductName before it
        "ProductName:\tWidget Pro\nProductVersion:\t12.7.6\n",  # another product's key/value list
        "ProductName:\tmacOS\nA: 1\nB: 2\nC: 3\nProductVersion:\t12.7.6\n",  # too far from its name
        "ProductName:\tmacOS\nProductVersion:\t12.7.6; rm -rf /\n",  # not a version
    ],
)
def test_product_lines_that_are_not_sw_vers(text: str) -> None:
    try:
        snapshot = snapshot_of(text)
    except BadInput:
        return
    assert snapshot.host is None or snapshot.host.os_name is None or "12.7.6" not in snapshot.host.os_name


# ------------------------------------------------------------ ldconfig -p rows of cuDNN

LDCONFIG = """Could not load library libcudnn_ops_infer.so.8. Error: libcudnn_ops_infer.so.8: cannot open \
shared object file: No such file or directory

ldconfig -p | grep libcudnn
        libcudnn_ops.so.9 (libc6,x86-64) => /lib/x86_64-linux-gnu/libcudnn_ops.so.9
        libcudnn_ops.so (libc6,x86-64) => /lib/x86_64-linux-gnu/libcudnn_ops.so
        libcudnn_cnn.so.9 (libc6,x86-64) => /lib/x86_64-linux-gnu/libcudnn_cnn.so.9
        libcudnn_cnn.so (libc6,x86-64) => /lib/x86_64-linux-gnu/libcudnn_cnn.so
"""
"""ultrasev/stream-whisper#28 (was refused)."""


def cudnn_of(text: str) -> tuple[str | None, str | None] | None:
    toolkits = snapshot_of(text).toolkits
    cudnn = toolkits.cudnn if toolkits is not None else None
    return (cudnn.version, cudnn.path) if cudnn is not None else None


def test_ldconfig_rows_give_the_system_cudnn() -> None:
    assert cudnn_of(LDCONFIG) == ("9", "/lib/x86_64-linux-gnu/libcudnn_ops.so.9")
    assert findings_of(LDCONFIG) == set()


def test_the_newest_cudnn_major_of_the_rows() -> None:
    # Twin: cuDNN 8 and 9 side by side (cuDNN 8's split libraries, cuDNN 9's).
    text = (
        "\tlibcudnn_ops_infer.so.8 (libc6,x86-64) => /usr/lib/x86_64-linux-gnu/libcudnn_ops_infer.so.8\n"
        "\tlibcudnn.so.9 (libc6,x86-64) => /usr/lib/x86_64-linux-gnu/libcudnn.so.9\n"
        "\tlibcudnn.so.8 (libc6,x86-64) => /usr/lib/x86_64-linux-gnu/libcudnn.so.8\n"
    )
    assert cudnn_of(text) == ("9", "/usr/lib/x86_64-linux-gnu/libcudnn.so.9")


@pytest.mark.parametrize(
    "text",
    [
        "libcudnn_ops.so (libc6,x86-64) => /lib/x86_64-linux-gnu/libcudnn_ops.so\n",  # no soname major
        "libcublas.so.12 (libc6,x86-64) => /lib/x86_64-linux-gnu/libcublas.so.12\n",  # not cuDNN
        "libcudnn.so.9 is what I have in /usr/lib\n",  # prose, not an ldconfig row
    ],
)
def test_lines_that_are_not_a_cudnn_row(text: str) -> None:
    assert cudnn_of(text + "Python 3.10.12\n") is None


# ------------------------------------------------------------ nightly companions of a source-built torch

MAC_SOURCE_BUILD = """Collecting environment information...
PyTorch version: 1.13.0a0+gitcbdb694
Is debug build: False
CUDA used to build PyTorch: None
ROCM used to build PyTorch: N/A

OS: macOS 12.4 (x86_64)
Python platform: macOS-10.16-x86_64-i386-64bit
Is CUDA available: False

Versions of relevant libraries:
[pip3] numpy==1.22.3
[pip3] torch==1.13.0a0+gitcbdb694
[pip3] torchvision==0.13.0.dev20220517
"""
"""pytorch/pytorch#78492 (a source build of torch main beside a torchvision nightly of the same week)."""


def test_a_nightly_companion_one_minor_off_a_source_build_is_not_an_error() -> None:
    assert COMPANION not in findings_of(MAC_SOURCE_BUILD)


@pytest.mark.parametrize(
    ("torch", "torchvision"),
    [
        ("1.13.0a0+gitcbdb694", "0.12.0.dev20220301"),  # two minors off: still another release
        ("1.13.0a0+gitcbdb694", "0.13.0"),  # a released torchvision pairs by the table
        ("1.13.0", "0.13.0.dev20220517"),  # a released torch pairs by the table
    ],
)
def test_pairs_the_table_still_judges(torch: str, torchvision: str) -> None:
    text = MAC_SOURCE_BUILD.replace("1.13.0a0+gitcbdb694", torch).replace("0.13.0.dev20220517", torchvision)
    assert COMPANION in findings_of(text)


def test_a_source_builds_git_label_is_not_an_index() -> None:
    text = MAC_SOURCE_BUILD.replace("0.13.0.dev20220517", "0.12.0")
    found = [f for f in evaluate(finalize(snapshot_of(text))) if f.id == "companion-version-mismatch"]
    assert found
    assert all("gitcbdb694" not in f.fix for f in found)
    assert "torchvision==0.14.*" in found[0].fix
