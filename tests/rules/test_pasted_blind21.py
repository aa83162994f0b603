"""Readers and checks fixed after blind batch 21 (recent reports from the most-used repositories): each test
is a real excerpt from the thread it names, with its limits (what must still not be read) and twins (the same
shape said another way)."""

from __future__ import annotations

import pytest

from envsnap.importers.evidence import read
from tests.rules.pasted import findings_of, kinds_of, snapshot_of

ARCH_PTX = ("arch-not-in-build", "warning")
COMPANION = ("companion-version-mismatch", "error")
DRIVER = ("driver-too-old-for-cuda-build", "error")
BNB = ("bitsandbytes-cpu-fallback", "error")


def _facts(text: str) -> list[tuple[str, str]]:
    return [(fact.kind, fact.value) for fact in read(text)]


# ------------------------------------------------------------------------- Unsloth's start-up banner

UNSLOTH_CU124 = (
    "`==((====))==  Unsloth 2025.4.1: Fast Llama patching. Transformers: 4.51.3. vLLM: 0.8.5.\n"
    "   \\\\   /|    NVIDIA GeForce RTX 5090. Num GPUs = 1. Max memory: 31.345 GB. Platform: Linux.\n"
    "O^O/ \\_/ \\    Torch: 2.6.0+cu124. CUDA: 12.0. CUDA Toolkit: 12.4. Triton: 3.2.0\n"
    "\\        /    Bfloat16 = TRUE. FA [Xformers = 0.0.29.post2. FA2 = False]\n"
    ' "-____-"     Free license: http://github.com/unslothai/unsloth\n'
)
"""unslothai/unsloth#2431: the banner of a cu124 torch on an RTX 5090."""

UNSLOTH_CU128 = (
    "==((====))==  Unsloth 2025.3.19: Fast Qwen2 patching. Transformers: 4.50.3. vLLM: 0.8.3.dev162.\n"
    "   \\\\   /|    NVIDIA GeForce RTX 5090. Num GPUs = 1. Max memory: 31.367 GB. Platform: Linux.\n"
    "O^O/ \\_/ \\    Torch: 2.8.0.dev20250331+cu128. CUDA: 12.0. CUDA Toolkit: 12.8. Triton: 3.3.0\n"
)
"""unslothai/unsloth#1856: the banner of a cu128 nightly on the same GPU."""


def test_unsloths_banner_gives_the_gpu_the_torch_build_and_its_cuda() -> None:
    facts = _facts(UNSLOTH_CU124)
    assert ("gpu", "NVIDIA GeForce RTX 5090") in facts
    assert ("torch", "2.6.0+cu124") in facts
    assert ("torch-cuda", "12.4") in facts
    assert ("cc", "12.0") in facts  # "CUDA: 12.0" is the compute capability, not a CUDA version
    assert not any(kind == "cuda-stated" and value == "12.0" for kind, value in facts)


def test_a_cu124_torch_on_an_rtx_5090_in_unsloths_banner_is_judged() -> None:
    # The wheel table gives 2.6.0+cu124 compute_90 PTX: sm_120 is reached by JIT only (a warning).
    assert ARCH_PTX in findings_of(UNSLOTH_CU124)


def test_unsloths_banner_with_a_cu128_nightly_is_no_fault() -> None:
    facts = _facts(UNSLOTH_CU128)
    assert ("torch", "2.8.0.dev20250331+cu128") in facts
    assert ("torch-cuda", "12.8") in facts
    assert findings_of(UNSLOTH_CU128) == set()


@pytest.mark.parametrize(
    "line",
    [
        "Torch: 2.6.0+cu124 is what I use, CUDA: 12.4\n",  # prose, not the banner's three fields
        "Torch: 2.6.0+cu124. CUDA Toolkit: 12.4. Triton: 3.2.0\n",  # no capability field
        "Num GPUs = 1. Max memory: 31.345 GB.\n",  # no name before it
    ],
)
def test_lines_short_of_the_banner_are_not_read_as_it(line: str) -> None:
    facts = _facts(line)
    assert not any(kind in ("cc", "torch-cuda") for kind, _ in facts)
    assert not any(kind == "gpu" for kind, _ in facts)


# ------------------------------------------------------ xFormers' "built for" names the torch it wanted

XFORMERS_BUILT_FOR = (
    "WARNING[XFORMERS]: xFormers can't load C++/CUDA extensions. xFormers was built for:\n"
    "    PyTorch 2.6.0+cu124 with CUDA 1204 (you have 2.8.0.dev20250331+cu128)\n"
    "    Python  3.10.16 (you have 3.10.12)\n"
    "  Please reinstall xformers (see https://github.com/facebookresearch/xformers#installing-xformers)\n"
)
"""unslothai/unsloth#1856: the block above Unsloth's banner (RTX 5090 below it)."""


def test_the_built_for_torch_and_python_are_not_the_installed_ones() -> None:
    facts = _facts(XFORMERS_BUILT_FOR)
    assert ("torch", "2.8.0.dev20250331+cu128") in facts
    assert ("torch", "2.6.0+cu124") not in facts
    assert ("python", "3.10.16") not in facts


def test_the_real_paste_keeps_the_companion_error_and_no_arch_finding() -> None:
    text = XFORMERS_BUILT_FOR + UNSLOTH_CU128
    assert findings_of(text) == {COMPANION}


def test_a_torch_line_without_you_have_is_still_read() -> None:
    """The twin: a plain "PyTorch 2.6.0+cu124" line is the installed torch as before."""
    assert ("torch", "2.6.0+cu124") in _facts("PyTorch 2.6.0+cu124\n")


# ----------------------------------------------- CUDA error 804: forward compatibility on a GeForce

FORWARD_COMPAT = (
    "root@ed104af9c1c0:/llama.cpp# CUDA_VISIBLE_DEVICES=2 build2/bin/llama-bench -m "
    "models/Llama-3-8B-GGUF/ggml-model-Q4_K_M.gguf\n"
    "ggml_cuda_init: failed to initialize CUDA: forward compatibility was attempted on non supported HW\n"
)
"""ggml-org/llama.cpp#13609: a CUDA 12.9 image on an RTX 3090."""


def test_ggmls_forward_compatibility_failure_is_a_driver_too_old() -> None:
    assert kinds_of(FORWARD_COMPAT) == ["driver-forward-compat"]
    assert DRIVER in findings_of(FORWARD_COMPAT)


def test_torchs_wording_of_error_804_is_the_same() -> None:
    text = (
        "UserWarning: CUDA initialization: Unexpected error from cudaGetDeviceCount(). Did you run some cuda "
        "functions before calling NumCudaDevices() that might have already set an error? Error 804: forward "
        "compatibility was attempted on non supported HW (Triggered internally at "
        "../c10/cuda/CUDAFunctions.cpp:109.)\n"
    )
    assert "driver-forward-compat" in kinds_of(text)
    assert DRIVER in findings_of(text)


@pytest.mark.parametrize(
    "text",
    [
        "forward compatibility is supported on data center GPUs only\n",
        "I read about CUDA forward compatibility and attempted it\n",
    ],
)
def test_prose_about_forward_compatibility_is_not_the_error(text: str) -> None:
    assert "driver-forward-compat" not in kinds_of(text)


# ------------------------------------------------------ bitsandbytes' CPU library named in backticks

BNB_QUOTED = (
    "- Reports: \u201cRequired library version not found: `libbitsandbytes_cuda124.so` \u2026 Defaulting to "
    "`libbitsandbytes_cpu.so` \u2026 Setup Failed!\u201d\n"
    '- PyTorch: 2.6.0+cu124 (torch.version.cuda == "12.4")\n'
)
"""bitsandbytes-foundation/bitsandbytes#1800: the diagnostic as the reporter quotes it."""


def test_the_cpu_library_in_backticks_is_read() -> None:
    assert "bitsandbytes-cpu" in kinds_of(BNB_QUOTED)
    assert BNB in findings_of(BNB_QUOTED)


def test_the_cpu_library_without_quotes_is_still_read() -> None:
    text = "CUDA SETUP: Defaulting to libbitsandbytes_cpu.so...\n"
    assert "bitsandbytes-cpu" in kinds_of(text)


def test_the_cuda_library_in_backticks_is_not_the_cpu_fallback() -> None:
    text = "Loading `libbitsandbytes_cuda124.so` from the package\n"
    assert "bitsandbytes-cpu" not in kinds_of(text)


def test_a_paste_with_these_lines_is_read_not_refused() -> None:
    for text in (UNSLOTH_CU124, FORWARD_COMPAT, BNB_QUOTED):
        snapshot_of(text)
