"""Readers fixed after blind batch 13: each test is a real excerpt from the thread it names."""

from __future__ import annotations

import pytest

from envsnap.errors import BadInput
from tests.rules.pasted import findings_of, snapshot_of


def torch_version(text: str) -> str | None:
    """The torch version the paste yields, or None when none is read."""
    frameworks = snapshot_of(text).frameworks
    torch = frameworks.torch if frameworks is not None else None
    return torch.version if torch is not None else None


GTX1070_CU129_PROSE = """I recently installed **ComfyUI Desktop**.  
**Setup:** i7-8750H, GTX 1070, 16 GB RAM.  
**Versions:** PyTorch 2.8.0 + cu129  

At startup, I noticed warnings about an incompatibility.  
"""
"""Comfy-Org/ComfyUI#9929 (fixed by reinstalling 2.8.0+cu128: the cu129 build has no Pascal kernels)."""

RTX5080_CU126_SENTENCE = """I am running torch 128 and have a 5080 GPU. Running in Ubuntu. 

6Morpheus6 · comment · 2025-06-27
@hotntwitchy Your system information shows PyTorch Version: 2.7.1+cu126
If that's true you have the wrong torch version which also matches the error you got.
"""
"""Comfy-Org/ComfyUI#8708 (a maintainer quoting the reporter's system information)."""

BARE_VERSION_SENTENCE = "I tried PyTorch version 2.7.1 and then 2.8.0, same error on my RTX 4090.\n"
"""A bare version mid-sentence (no build tag): not read as a build (evidence.py's docstring)."""


def test_build_tag_written_apart_is_joined_and_judged() -> None:
    assert torch_version(GTX1070_CU129_PROSE) == "2.8.0+cu129"
    assert ("arch-not-in-build", "error") in findings_of(GTX1070_CU129_PROSE)


def test_the_same_build_written_together_gives_the_same_finding() -> None:
    together = GTX1070_CU129_PROSE.replace("2.8.0 + cu129", "2.8.0+cu129")
    assert torch_version(together) == "2.8.0+cu129"
    assert findings_of(together) == findings_of(GTX1070_CU129_PROSE)


def test_the_cu126_build_on_the_same_card_is_not_flagged() -> None:
    # 2.8's cu126 wheels still carry Pascal (sm_61) kernels (torch_wheels.yaml).
    fixed = GTX1070_CU129_PROSE.replace("cu129", "cu126")
    assert torch_version(fixed) == "2.8.0+cu126"
    assert ("arch-not-in-build", "error") not in findings_of(fixed)


def test_a_torch_build_said_mid_sentence_is_read() -> None:
    assert torch_version(RTX5080_CU126_SENTENCE) == "2.7.1+cu126"
    # Round 15 decided this round's leftover: "a 5080 GPU" (an x050-x090 number after an article, before
    # "GPU") is the GeForce RTX 5080, and AMD's "6800 GPU" stays unread (limits in test_pasted_blind15.py),
    # so the cu126 build without sm_120 is the arch error the thread established.
    assert ("arch-not-in-build", "error") in findings_of(RTX5080_CU126_SENTENCE)


def test_a_bare_version_mid_sentence_is_not_a_build() -> None:
    assert torch_version(BARE_VERSION_SENTENCE) is None
    assert not {f for f in findings_of(BARE_VERSION_SENTENCE) if f[1] == "error"}


SDNEXT_SYSTEM_PACKAGES = (
    "06:26:03-085287 INFO     System packages: {'torch': '2.4.1+cpu', 'diffusers': '0.31.0.dev0', "
    "'gradio': '3.43.2',\n"
    "                         'transformers': '4.45.1', 'accelerate': '0.33.0'}\n"
    "06:26:04-218593 INFO     Engine: backend=Backend.DIFFUSERS compute=None device=cpu "
    'attention="Scaled-Dot-Product"\n'
)
"""vladmandic/sdnext#3476 ('Torch cpu installed on nvidia system'; the log names no GPU)."""


def test_a_printed_dict_of_package_versions_is_read() -> None:
    assert torch_version(SDNEXT_SYSTEM_PACKAGES) == "2.4.1+cpu"
    # A CPU build with no GPU in the paste: nothing to judge it against (house convention, llamafactory-7666).
    assert ("cpu-only-build-on-gpu-host", "error") not in findings_of(SDNEXT_SYSTEM_PACKAGES)


def test_the_cpu_build_in_the_dict_is_judged_when_a_gpu_is_shown() -> None:
    with_gpu = SDNEXT_SYSTEM_PACKAGES + "GPU 0: NVIDIA GeForce RTX 4090\nNvidia driver version: 560.94\n"
    assert ("cpu-only-build-on-gpu-host", "error") in findings_of(with_gpu)


def test_unknown_names_in_a_printed_dict_are_not_packages() -> None:
    # Neither member names a known package: nothing is read, so the paste is refused (exit 2), not misread.
    with pytest.raises(BadInput):
        snapshot_of("settings: {'theme': '2.1.0', 'torch_home': '1.2.3'}\n")
