"""Line-by-line facts (importers/evidence.py) and log-prefix stripping (importers/log_prefix.py).

Every input line here is copied from a real paste in tests/data/reports (the file is named); the
corpus test judges whole files, these pin down what one line yields and at which line number.
"""

from __future__ import annotations

import pytest

from envsnap.importers import evidence, evidence_sections, log_prefix


def _facts(text: str) -> list[tuple[str, str, str, int]]:
    return [(f.kind, f.value, f.detail, f.line) for f in evidence.read(text)]


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        # vllm-14452: vLLM's level prefix
        (
            "ERROR 07-28 15:07:22 [core.py:632] RuntimeError: CUDA error: no kernel image",
            "RuntimeError: CUDA error: no kernel image",
        ),
        # sdwebui-nix-9: journald
        (
            "Oct 04 13:19:39 llm sd-webui-forge-start[394]: NVIDIA GeForce RTX 5090 with CUDA",
            "NVIDIA GeForce RTX 5090 with CUDA",
        ),
        # ollama-9245: journald with a Chinese month
        ("2月 21 13:31:11 tc ollama[285585]: CUDA driver version: 12.3", "CUDA driver version: 12.3"),
        # open-gpu-712: dmesg with a thread id
        ("[   10.800842] [   T1343] NVRM: API mismatch: the client", "NVRM: API mismatch: the client"),
        # vllm-5547: torch.distributed
        ("[rank0]: RuntimeError: CUDA error", "RuntimeError: CUDA error"),
        # comfyui-5511: bracketed timestamp
        ("[2024-11-06 23:40:40.835] pytorch version: 2.3.1+cu121", "pytorch version: 2.3.1+cu121"),
        # sdnext-1316: the old SD.Next columns
        (
            "2023-06-05 09:04:37,363 | sd | INFO | installer | Torch 2.0.1+cu118",
            "Torch 2.0.1+cu118",
        ),
        # sdnext-1424: the rich logger
        ("22:47:27-752280 INFO     Torch 2.0.1+cpu", "Torch 2.0.1+cpu"),
        # a line with nothing in front stays as it is
        ("PyTorch version: 2.0.1+cu117", "PyTorch version: 2.0.1+cu117"),
    ],
)
def test_log_prefixes_are_stripped(line: str, expected: str) -> None:
    assert log_prefix.strip(line) == expected


def test_comfyui_glued_timestamps_are_removed_inside_the_line() -> None:
    # comfyui-nf4-51
    line = (
        "2024-11-21T03:52:02.432538 - ** Platform:2024-11-21T03:52:02.432565 -  "
        "2024-11-21T03:52:02.432590 - Linux"
    )
    assert log_prefix.strip(line) == "** Platform: Linux"


def test_a_comfyui_start_up_log_gives_torch_gpu_and_its_use() -> None:
    text = (
        "Total VRAM 24564 MB, total RAM 32694 MB\n"
        "pytorch version: 2.7.0+cu128\n"
        "Set vram state to: NORMAL_VRAM\n"
        "Device: cuda:0 NVIDIA GeForce RTX 4090 : native\n"
    )
    assert _facts(text) == [
        ("torch", "2.7.0+cu128", "", 2),
        ("cuda-in-use", "0", "", 4),
        ("gpu", "NVIDIA GeForce RTX 4090", "", 4),
    ]


def test_sglang_check_env_lines() -> None:
    text = (
        "CUDA available: True\n"
        "GPU 0: NVIDIA A40\n"
        "GPU 0 Compute Capability: 8.6\n"
        "NVCC: Cuda compilation tools, release 12.1, V12.1.66\n"
        "CUDA Driver Version: 535.104.12\n"
        "PyTorch: 2.4.0+cu121\n"
        "flashinfer: 0.1.6+cu121torch2.4\n"
    )
    assert _facts(text) == [
        ("cuda-available", "yes", "", 1),
        ("gpu", "NVIDIA A40", "", 2),
        ("cc", "8.6", "", 3),
        ("nvcc", "12.1.66", "", 4),
        ("driver", "535.104.12", "", 5),
        ("torch", "2.4.0+cu121", "", 6),
        ("package", "0.1.6+cu121torch2.4", "flashinfer", 7),
    ]
    sections = evidence_sections.sections(evidence.read(text))
    assert sections is not None
    assert sections.frameworks is not None
    assert sections.frameworks.torch is not None
    assert sections.frameworks.torch.cuda == "12.1"
    assert sections.frameworks.torch.available is not None
    assert sections.frameworks.torch.available.cuda


def test_ds_report_dotted_lines() -> None:
    text = (
        "torch version .................... 2.3.0+cu121\n"
        "torch cuda version ............... 12.1\n"
        "nvcc version ..................... 12.0\n"
    )
    assert _facts(text) == [
        ("torch", "2.3.0+cu121", "", 1),
        ("torch-cuda", "12.1", "", 2),
        ("nvcc", "12.0", "", 3),
    ]


def test_pip_show_and_its_cuda_wheels() -> None:
    # deepspeed-5312
    text = (
        "Name: torch\nVersion: 2.2.1\nSummary: Tensors and Dynamic neural networks\n"
        "Requires: filelock, nvidia-cublas-cu12, nvidia-cuda-runtime-cu12, sympy\n"
    )
    assert _facts(text) == [("package", "2.2.1", "torch", 2), ("torch-requires-cuda", "12", "", 4)]


def test_pip_resolver_conflicts_are_read_even_inside_a_sentence() -> None:
    # shivam-diffusers-224
    line = (
        "whene i Install Requirements an error happend (torchvision 0.14.1+cu116 requires torch==1.13.1, "
        "but you have torch 2.0.0 which is incompatible.)"
    )
    kinds = [(k, v, d) for k, v, d, _ in _facts(line)]
    assert ("package", "0.14.1+cu116", "torchvision") in kinds
    assert ("package", "2.0.0", "torch") in kinds
    assert any(k == "pip-conflict" and d == "torchvision" for k, _, d in kinds)


def test_successfully_installed_lists_every_distribution() -> None:
    line = "Successfully installed torch-2.4.0 torchaudio-2.4.0 torchvision-0.19.0"
    assert [(d, v) for k, v, d, _ in _facts(line) if k == "package"] == [
        ("torch", "2.4.0"),
        ("torchaudio", "2.4.0"),
        ("torchvision", "0.19.0"),
    ]


def test_a_template_heading_names_the_value_on_a_later_line() -> None:
    # damo-yolo-57
    text = "### Device\n\nRTX4090\n\n### PyTorch version\n\n1.7.0\n"
    assert _facts(text) == [("gpu", "RTX 4090", "", 3), ("torch", "1.7.0", "", 7)]


def test_a_bare_torch_version_never_becomes_a_build() -> None:
    # gpgraph-1: a sentence naming the stack; "PyTorch 1.9.0" says nothing about CUDA
    line = "I did all experiments on the RTX 3090 system(Ubuntu 20.04, PyTorch 1.9.0, CUDA 11.1)."
    facts = evidence.read(line)
    assert ("torch", "1.9.0") in [(f.kind, f.value) for f in facts]
    sections = evidence_sections.sections(facts)
    assert sections is None or sections.frameworks is None


def test_template_placeholders_are_not_values() -> None:
    # geoevobuilder-3
    text = "- System: [e.g., Ubuntu 22.04 / Windows 11]\n"
    assert _facts(text) == []


def test_full_width_colons_and_prose_without_facts() -> None:
    assert _facts("python version：3.8.16\n") == [("python", "3.8.16", "", 1)]
    assert _facts("Thanks, it works now!\nCould you please help?\n") == []


def test_pathological_lines_are_clipped() -> None:
    line = "PyTorch version: 2.1.0+cu121" + " " * 100_000 + "x"
    facts = evidence.read(line)
    assert [(f.kind, f.value) for f in facts] == [("torch", "2.1.0+cu121")]


def test_a_paste_of_facts_alone_says_so_and_names_what_it_does_not_state() -> None:
    from envsnap.importers.auto import notice, parse_auto

    # comfyui-8010: "pytorch version:" and "Python version:" are not a collect_env report
    text = (
        "Total VRAM 24564 MB, total RAM 32694 MB\npytorch version: 2.7.0+cu128\n"
        "Device: cuda:0 NVIDIA GeForce RTX 4090 : native\n"
        "Python version: 3.12.9 (tags/v3.12.9:fdb8142, Feb  4 2025, 15:27:58) [MSC v.1942 64 bit (AMD64)]\n"
    )
    snapshot = parse_auto(text, "comfy.log", captured_at="2026-01-01T00:00:00Z")
    assert snapshot.meta.origin is not None
    assert snapshot.meta.origin.sections == ("facts",)
    lines = notice(snapshot)
    assert lines[0] == "envsnap: comfy.log: read facts"
    assert "not stated: the driver, the packages (unknown, not absent)" in lines[1]


# --- blind batch 2 (issue reportsblind) -----------------------------------------------------------


def test_nvidia_smis_header_pair_is_read_inside_a_flattened_paragraph() -> None:
    """llamacpp-4747: ``nvidia-smi -q -d CLOCK`` pasted as one quoted line."""
    line = "> Timestamp : Wed Jan 10 08:58:04 2024 Driver Version : 535.129.03 CUDA Version : 12.2"
    assert ("driver", "535.129.03", "", 1) in _facts(line)
    assert ("cuda-driver", "12.2", "", 1) in _facts(line)


def test_a_driver_version_without_a_driver_number_is_not_a_driver() -> None:
    assert [f for f in _facts("Timestamp : today Driver Version : unknown") if f[0] == "driver"] == []


@pytest.mark.parametrize(
    ("line", "cuda"),
    [
        # pytorch-68611
        ("conda install pytorch torchvision torchaudio cudatoolkit=11.3 -c pytorch-nightly", "11.3"),
        # the conda command of pytorch.org's previous-versions page (pytorch-cuda, 2023 on)
        ("conda install pytorch torchvision torchaudio pytorch-cuda=11.7 -c pytorch -c nvidia", "11.7"),
    ],
)
def test_a_conda_install_of_pytorch_with_its_cuda_pinned_states_torchs_cuda(line: str, cuda: str) -> None:
    assert ("torch-cuda", cuda, "", 1) in _facts(line)


def test_a_conda_install_without_pytorch_says_nothing_of_torch() -> None:
    assert [f for f in _facts("conda install -c nvidia cudatoolkit=11.3") if f[0] == "torch-cuda"] == []


def test_a_conda_list_cut_above_its_header_is_still_a_conda_list() -> None:
    """sonar-784: three rows with build and channel columns and no header (a headless pip list needs more)."""
    from envsnap.importers import package_lists

    rows = [
        "libnvjitlink              12.4.127                      0    nvidia/label/cuda-12.4.1",
        "libnvjpeg                 12.3.1.117                    0    nvidia/label/cuda-12.4.1",
        "nsight-compute            2024.1.1.4                    0    nvidia/label/cuda-12.4.1",
    ]
    parsed = package_lists.parse_headless_list(rows)
    assert parsed is not None
    assert parsed.packages is not None
    first = parsed.packages[0]
    assert (first.name, first.version, first.installer) == ("libnvjitlink", "12.4.127", "conda")
    # the same three rows without build and channel are too few to be a list
    assert package_lists.parse_headless_list([r.split("    ")[0] + "  1.0" for r in rows]) is None
