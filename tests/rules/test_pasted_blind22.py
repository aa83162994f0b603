"""Readers and checks fixed after blind batch 22 (TensorFlow, JAX, ONNX Runtime, PaddlePaddle and CuPy
pastes): each test is a real excerpt from the thread it names, with its limits (what must still not be
read) and twins (the same shape said another way)."""

from __future__ import annotations

import pytest

from envsnap.importers.messages import scan
from envsnap.rules import evaluate
from envsnap.snapshot.finalize import finalize
from tests.rules.pasted import findings_of, kinds_of, snapshot_of

ARCH = ("arch-not-in-build", "error")

# ------------------------------------------- TensorFlow ignores a GPU below its minimum capability

TF_820M = (
    ">>> sess = tf.Session(config=tf.ConfigProto(log_device_placement=True))\n"
    "2018-12-08 02:10:10.125431: I T:\\src\\github\\tensorflow\\tensorflow\\core\\common_runtime\\gpu\\"
    "gpu_device.cc:1405] Found device 0 with properties:\n"
    "name: GeForce 820M major: 2 minor: 1 memoryClockRate(GHz): 1.25\n"
    "2018-12-08 02:10:10.136463: I T:\\src\\github\\tensorflow\\tensorflow\\core\\common_runtime\\gpu\\"
    "gpu_device.cc:1455] Ignoring visible gpu device (device: 0, name: GeForce 820M, pci bus id: "
    "0000:08:00.0, compute capability: 2.1) with Cuda compute capability 2.1. The minimum required Cuda "
    "capability is 3.0.\n"
)
"""tensorflow/tensorflow#24227: tensorflow-gpu on a GeForce 820M (compute capability 2.1), Windows 10."""


def test_tensorflows_minimum_capability_line_is_an_arch_not_in_build() -> None:
    assert kinds_of(TF_820M) == ["tf-gpu-below-minimum"]
    assert ARCH in findings_of(TF_820M)


def test_the_kept_line_is_tensorflows_sentence_without_the_log_prefix() -> None:
    (message,) = scan(TF_820M).messages
    assert message.text.startswith("Ignoring visible gpu device (device: 0, name: GeForce 820M")
    assert message.text.endswith("The minimum required Cuda capability is 3.0")


def test_the_same_line_on_one_line_without_a_prefix_is_read() -> None:
    # twin: the sentence quoted alone (as an issue title would), other numbers
    text = (
        "Ignoring visible gpu device (device: 0, name: GeForce GT 730, pci bus id: 0000:01:00.0, compute "
        "capability: 3.5) with Cuda compute capability 3.5. The minimum required Cuda capability is 3.7.\n"
    )
    assert kinds_of(text) == ["tf-gpu-below-minimum"]
    assert ARCH in findings_of(text)


@pytest.mark.parametrize(
    "text",
    [
        # TensorFlow's multiprocessor-count threshold: tunable (TF_MIN_GPU_MULTIPROCESSOR_COUNT), not
        # the build
        "Ignoring visible gpu device (device: 0, name: GeForce GT 710, pci bus id: 0000:01:00.0, compute "
        "capability: 3.5) with core count: 1. The minimum required count is 8. You can adjust this "
        "requirement with the env var TF_MIN_GPU_MULTIPROCESSOR_COUNT.\n",
        # prose about the minimum, no device ignored
        "The minimum required Cuda capability is 3.5 for this release, so check your card first.\n",
        # a device line TensorFlow kept
        "Created TensorFlow device (/device:GPU:0 with 7611 MB memory) -> physical GPU (device: 0, name: "
        "NVIDIA GeForce GTX 1080, pci bus id: 0000:01:00.0, compute capability: 6.1)\n",
    ],
)
def test_other_tensorflow_device_lines_are_not_the_arch_fault(text: str) -> None:
    assert "tf-gpu-below-minimum" not in [message.kind for message in scan(text).messages]


def test_torchs_own_line_beside_it_gives_one_finding() -> None:
    text = TF_820M + (
        "UserWarning: Found GPU0 GeForce 820M which is of cuda capability 2.1. PyTorch no longer supports "
        "this GPU because it is too old.\n"
    )
    arch = [f for f in evaluate(finalize(snapshot_of(text))) if f.id == "arch-not-in-build"]
    assert len(arch) == 1
    assert "torch said so" in arch[0].title  # torch's own line is judged first; TensorFlow's adds nothing
