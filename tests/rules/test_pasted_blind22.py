"""Readers and checks fixed after blind batch 22 (TensorFlow, JAX, ONNX Runtime, PaddlePaddle and CuPy
pastes): each test is a real excerpt from the thread it names, with its limits (what must still not be
read) and twins (the same shape said another way)."""

from __future__ import annotations

import pytest

from envsnap.errors import BadInput
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


# ------------------------------------------------------- Paddle's "Cuda error(35)" kept as a code alone

DRIVER = ("driver-too-old-for-cuda-build", "error")


def test_paddles_cuda_error_35_in_a_title_is_a_driver_too_old() -> None:
    # PaddlePaddle/PaddleX#164: the title keeps the code; its sentence is misspelt ("CUD runtime version")
    text = (
        "Windows10系统下运行项目报错，日志：『Cuda error(35),CUDA driver version is insufficient "
        "for CUD runtime "
        "version』\n\n电脑环境：windows10，1050ti，未安装CUDA\n"
    )
    assert kinds_of(text) == ["driver-insufficient"]
    assert DRIVER in findings_of(text)


@pytest.mark.parametrize(
    "text",
    [
        "OSError: (External) Cuda error(3), initialization error.\n",
        "ExternalError: Cuda error(350), unknown\n",
        "CUDA error 35 is what I looked up\n",
    ],
)
def test_other_cuda_error_codes_are_not_error_35(text: str) -> None:
    assert "driver-insufficient" not in kinds_of(text)


# ------------------------------------------- JAX's backend warning and ONNX Runtime's provider DLL

MT3_JAX = (
    "WARNING:jax._src.xla_bridge:CUDA backend failed to initialize: Unable to load CUDA. (Set "
    "TF_CPP_MIN_LOG_LEVEL=0 and rerun for more info.)\n"
)
"""magenta/mt3#145: JAX on Colab with jax[cuda11_local]."""

ORT_126 = (
    "Microsoft.ML.OnnxRuntime.OnnxRuntimeException:“[ErrorCode:RuntimeException] "
    "D:\\a\\_work\\1\\s\\onnxruntime\\core\\session\\provider_bridge_ort.cc:1193 "
    "onnxruntime::ProviderLibrary::Get [ONNXRuntimeError] : 1 : FAIL : LoadLibrary failed with error 126 "
    '"" when trying to load "D:\\Projects\\Yolov8.Net\\Yolo.Net.FromTest\\bin\\Debug\\net6.0-windows'
    "\\runtimes\\win-x64\\native\\onnxruntime_providers_cuda.dll\n"
)
"""microsoft/onnxruntime#20571: the NuGet package's CUDA provider on Windows (the closing quote cut)."""


def test_jaxs_backend_warning_is_read_and_judged_by_no_rule() -> None:
    assert kinds_of(MT3_JAX) == ["jax-cuda-backend-failed"]
    assert findings_of(MT3_JAX) == set()


def test_onnxruntimes_provider_dll_error_is_read_and_judged_by_no_rule() -> None:
    assert kinds_of(ORT_126) == ["ort-cuda-provider-not-loaded"]
    assert findings_of(ORT_126) == set()


def test_another_dll_failing_to_load_is_not_the_cuda_provider() -> None:
    text = (
        'LoadLibrary failed with error 126 "" when trying to load "C:\\x\\onnxruntime_providers_tensorrt.dll"'
    )
    assert "ort-cuda-provider-not-loaded" not in kinds_of(text)


# --------------------------------------------- `echo $CUDA_VISIBLE_DEVICES` and the value printed below

JAX_MIG = (
    "```bash\n> echo $CUDA_VISIBLE_DEVICES\nMIG-ff9ad03d-6c8b-5f72-b0dc-70b79aef1bd9,MIG-877ee044-c0f3\n```\n"
)
"""jax-ml/jax#15843 (shortened): A100 MIG instances listed by UUID."""


def test_an_echoed_visibility_variable_is_read() -> None:
    variables = snapshot_of(JAX_MIG).environment
    assert variables is not None
    assert variables.variables == {
        "CUDA_VISIBLE_DEVICES": "MIG-ff9ad03d-6c8b-5f72-b0dc-70b79aef1bd9,MIG-877ee044-c0f3"
    }
    assert findings_of(JAX_MIG) == set()  # no GPU listed: nothing to judge the list against


def test_the_export_form_wins_over_an_echo() -> None:
    text = "export CUDA_VISIBLE_DEVICES=0\necho $CUDA_VISIBLE_DEVICES\n1\n"
    environment = snapshot_of(text).environment
    assert environment is not None
    assert environment.variables == {"CUDA_VISIBLE_DEVICES": "0"}


@pytest.mark.parametrize(
    "text",
    [
        "echo $CUDA_VISIBLE_DEVICES\n\n",  # printed nothing (unset)
        "echo $CUDA_VISIBLE_DEVICES\nit printed 0 and 1\n",  # prose below, not a value line
        "echo $PATH\n/usr/bin:/bin\n",  # a variable the rules do not read
    ],
)
def test_an_echo_without_a_device_list_below_is_not_read(text: str) -> None:
    assert "CUDA_VISIBLE_DEVICES" not in str(_variables_or_refused(text))


def _variables_or_refused(text: str) -> dict[str, str] | None:
    try:
        environment = snapshot_of(text).environment
    except BadInput:
        return None
    return dict(environment.variables or {}) if environment is not None else None
