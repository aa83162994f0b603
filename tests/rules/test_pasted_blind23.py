"""Readers and checks fixed after blind batch 23: each test is a real excerpt from the thread it names,
with its twins (the nearest case where the old behaviour was right, which must not change)."""

from __future__ import annotations

import pytest

from envsnap.errors import BadInput
from envsnap.importers.messages import scan
from tests.rules.pasted import findings_of, kinds_of, snapshot_of

ARCH = ("arch-not-in-build", "error")
OVERRIDE = ("rocm-gfx-unsupported", "warning")

# ---------------------------- candle (text-embeddings-inference): runtime vs compile-time compute cap

TEI_V100 = (
    "```\n"
    "Error: Could not create backend\n"
    "\n"
    "Caused by:\n"
    "    Could not start backend: Runtime compute cap 70 is not compatible with compile time compute cap 80\n"
    "```\n"
)
"""huggingface/text-embeddings-inference#268: the default 1.2 image on a Tesla V100 (cc 7.0)."""

TEI_BLACKWELL = (
    "2026-01-23T13:41:25.805694Z ERROR text_embeddings_backend: backends/src/lib.rs:491: Could not start "
    "Candle backend: Could not start backend: Runtime compute cap 120 is not compatible with compile time "
    "compute cap 80\n"
)
"""huggingface/text-embeddings-inference#806: the 1.8 image on an RTX PRO 6000 Blackwell (cc 12.0)."""


@pytest.mark.parametrize("text", [TEI_V100, TEI_BLACKWELL])
def test_candles_compute_cap_line_is_an_arch_not_in_build(text: str) -> None:
    assert kinds_of(text) == ["compute-cap-not-compiled"]
    assert ARCH in findings_of(text)


def test_the_kept_line_drops_the_log_prefix() -> None:
    (message,) = scan(TEI_BLACKWELL).messages
    assert message.text == "Runtime compute cap 120 is not compatible with compile time compute cap 80"


def test_equal_caps_are_the_checks_own_bug_not_a_missing_arch() -> None:
    # twin: text-embeddings-inference#20 printed the line with the same number on both sides (a T4 on the
    # turing image): the image does have code for the GPU, so nothing is read and nothing is found
    text = (
        "Could not start backend: Runtime compute cap 75 is not compatible with compile time compute cap 75\n"
    )
    assert kinds_of(text) == []
    with pytest.raises(BadInput):  # the line alone states nothing else: the paste is refused, not judged
        findings_of(text)


def test_prose_about_compute_caps_is_not_the_line() -> None:
    text = "The runtime compute cap of my card is 86 and the image was compiled for compute cap 80, right?\n"
    assert kinds_of(text) == []


def test_torchs_own_warning_beside_it_gives_one_finding() -> None:
    text = TEI_V100 + (
        "UserWarning: \nNVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible with the "
        "current PyTorch installation.\nThe current PyTorch install supports CUDA capabilities sm_50 sm_60 "
        "sm_70 sm_75 sm_80 sm_86 sm_90.\n"
    )
    assert ARCH in findings_of(text)
    assert kinds_of(text)[0] == "arch-not-compatible"


# ------------------------------------------------------- VAR=value command after a shell prompt

GFX90C_SESSION = (
    "After override gfx90c to gfx900\n"
    "```\n"
    "root@0f962c3a9d38:/var/lib/jenkins# HSA_OVERRIDE_GFX_VERSION=9.0.0 python3\n"
    "Python 3.7.13 (default, Mar 29 2022, 02:18:16)\n"
    ">>> import torch\n"
    ">>> torch.cuda.is_available()\n"
    "True\n"
    "```\n"
)
"""ROCm/legacy-rocm-build#1743: a Ryzen APU (gfx900c) run in rocm/pytorch with the override."""


def _variables(text: str) -> dict[str, str]:
    try:
        environment = snapshot_of(text).environment
    except BadInput:  # nothing else read either: refused
        return {}
    return dict(environment.variables or {}) if environment is not None else {}


def test_an_override_typed_after_a_root_prompt_is_the_environment() -> None:
    assert _variables(GFX90C_SESSION) == {"HSA_OVERRIDE_GFX_VERSION": "9.0.0"}
    assert OVERRIDE in findings_of(GFX90C_SESSION)


def test_a_flag_after_a_dollar_prompt_is_read() -> None:
    # twin: the plain "$ " prompt, the other variable read this way
    text = "$ PYTORCH_ENABLE_MPS_FALLBACK=1 python train.py\nRuntimeError: No HIP GPUs are available\n"
    assert _variables(text) == {"PYTORCH_ENABLE_MPS_FALLBACK": "1"}


LLAMA_BENCH_SESSION = (
    "root@ed104af9c1c0:/llama.cpp# CUDA_VISIBLE_DEVICES=2 build2/bin/llama-bench -m models/Llama-3-8B-GGUF/"
    "ggml-model-Q4_K_M.gguf\n"
    "ggml_cuda_init: failed to initialize CUDA: forward compatibility was attempted on non supported HW\n"
    "root@ed104af9c1c0:/llama.cpp# CUDA_VISIBLE_DEVICES=1 build2/bin/llama-bench -m models/Llama-3-8B-GGUF/"
    "ggml-model-Q4_K_M.gguf\n"
    "ggml_cuda_init: found 1 CUDA devices:\n"
    "  Device 0: Tesla V100-SXM2-16GB, compute capability 7.0, VMM: yes\n"
)
"""ggml-org/llama.cpp#13609 (built against): one GPU per command; neither list is the paste's environment."""


def test_a_visibility_list_per_command_is_not_the_environment() -> None:
    assert "CUDA_VISIBLE_DEVICES" not in _variables(LLAMA_BENCH_SESSION)
    assert ("cuda-visible-devices-hides-gpus", "warning") not in findings_of(LLAMA_BENCH_SESSION)


def test_an_override_given_two_values_in_one_session_is_none() -> None:
    text = GFX90C_SESSION + "root@0f962c3a9d38:/w# HSA_OVERRIDE_GFX_VERSION=10.3.0 python3 x.py\n"
    assert "HSA_OVERRIDE_GFX_VERSION" not in _variables(text)


@pytest.mark.parametrize(
    "text",
    [
        # a suggestion in a sentence (no prompt): what someone could run, not what ran
        "you can try HSA_OVERRIDE_GFX_VERSION=9.0.0 python3 and see if it works\n",
        # commented out in a script
        "# HSA_OVERRIDE_GFX_VERSION=10.3.0 python main.py\n",
        # a markdown-quoted reply
        "> HSA_OVERRIDE_GFX_VERSION=10.3.0 python main.py\n",
        # a prompt with the assignment alone (bash sets a shell variable, not the environment)
        "root@host:/w# HSA_OVERRIDE_GFX_VERSION=9.0.0\n",
        # a variable the rules do not read
        "$ OMP_NUM_THREADS=4 python3 train.py\n",
    ],
)
def test_the_same_words_without_a_prompt_and_a_command_are_not_read(text: str) -> None:
    assert _variables(text) == {}


def test_export_still_wins_over_a_prompt_assignment() -> None:
    text = "export HSA_OVERRIDE_GFX_VERSION=10.3.0\n$ HSA_OVERRIDE_GFX_VERSION=9.0.0 python3 x.py\n"
    assert _variables(text) == {"HSA_OVERRIDE_GFX_VERSION": "10.3.0"}
