"""Rules on what a pasted report printed: findings from the messages when the tables can't reach."""

from __future__ import annotations

from envsnap.importers.auto import parse_auto
from envsnap.rules import evaluate
from envsnap.snapshot.finalize import finalize

NOW = "2026-01-01T00:00:00Z"


def _found(text: str) -> set[tuple[str, str]]:
    return {(f.id, f.severity) for f in evaluate(finalize(parse_auto(text, "r.txt", captured_at=NOW)))}


def test_a_lone_driver_warning_is_a_driver_finding() -> None:
    text = (
        "/usr/lib/python3/torch/cuda/__init__.py:124: UserWarning: CUDA initialization: The NVIDIA driver on "
        "your system is too old (found version 11000). Please update your GPU driver"
    )
    assert _found(text) == {("driver-too-old-for-cuda-build", "error")}


def test_a_lone_sm_warning_is_an_arch_finding_not_a_cpu_build() -> None:
    text = (
        "UserWarning: NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible with the "
        "current PyTorch installation. The current PyTorch install supports CUDA capabilities "
        "sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90."
    )
    assert _found(text) == {("arch-not-in-build", "error")}


def test_printed_lines_map_to_their_causes() -> None:
    assert _found(
        "RuntimeError: cuDNN version incompatibility: PyTorch was compiled  against (8, 5, 0) but "
        "found runtime "
        "version (8, 4, 1)."
    ) == {("ld-library-path-shadowing", "error")}
    assert _found(
        "WARNING[XFORMERS]: xFormers can't load C++/CUDA extensions. xFormers was built for:\n"
        "    PyTorch 2.1.2+cu121 with CUDA 1201 (you have 2.1.2+cpu)\n"
    ) == {("companion-version-mismatch", "error")}
    assert _found(
        "OSError: The detected CUDA version (10.1) mismatches the version that was used to compile\n"
        "PyTorch (11.3). Please make sure to use the same CUDA versions."
    ) == {("nvcc-torch-cuda-mismatch", "error")}


def test_the_table_driven_finding_wins_over_the_printed_one() -> None:
    text = (
        "PyTorch version: 1.6.0\nCUDA used to build PyTorch: 10.2\nIs CUDA available: False\n"
        "GPU models and configuration: GPU 0: Tesla V100-SXM2-16GB\nNvidia driver version: 418.67\n\n"
        "Versions of relevant libraries:\n[pip3] torch==1.6.0\n\n"
        "UserWarning: CUDA initialization: The NVIDIA driver on your system is too old (found version 10010)."
    )
    found = evaluate(finalize(parse_auto(text, "r.txt", captured_at=NOW)))
    drivers = [f for f in found if f.id == "driver-too-old-for-cuda-build"]
    assert len(drivers) == 1
    assert drivers[0].severity == "error", "CUDA 10.x has no minor-version compatibility"
    assert "418.67" in drivers[0].title


def test_an_unknown_driver_in_a_report_is_not_an_absent_one() -> None:
    text = (
        "PyTorch version: 2.7.1+xpu\nCUDA used to build PyTorch: N/A\nCUDA runtime version: 11.8.89\n"
        "Nvidia driver version: Could not collect\n\n"
        "Versions of relevant libraries:\n[pip3] torch==2.7.1+xpu\n"
    )
    assert ("cuda-toolkit-without-driver", "info") not in _found(text)


def test_amd_gfx_inferred_from_the_name_says_so_and_names_the_row() -> None:
    text = (
        "PyTorch version: 2.6.0+rocm6.2.4\nROCM used to build PyTorch: 6.2.41134-65d174c3e\n"
        "GPU models and configuration: AMD Radeon RX 6800M\nHIP runtime version: 6.2.41134\n\n"
        "Versions of relevant libraries:\n[pip3] torch==2.6.0+rocm6.2.4\n"
    )
    found = evaluate(finalize(parse_auto(text, "r.txt", captured_at=NOW)))
    assert {(f.id, f.severity) for f in found} == {
        ("arch-not-in-build", "error"),
        ("rocm-gfx-unsupported", "warning"),
    }
    unsupported = next(f for f in found if f.id == "rocm-gfx-unsupported")
    assert unsupported.title.endswith("ROCm 6.2")
    evidence = unsupported.evidence[0]
    assert evidence.path == "accelerators.amd.devices[0].name"
    assert "gfx1031 inferred from the name, matched /" in str(evidence.value)
    assert "rules/data/rocm.yaml" in str(evidence.value)


def test_no_gpus_with_a_visible_devices_variable_names_the_variable() -> None:
    prose = 'I fixed it by removing "export CUDA_VISIBLE_DEVICES=2" from the script.\n'
    error = "RuntimeError: No CUDA GPUs are available\n"
    found = evaluate(finalize(parse_auto(prose + error, "r.txt", captured_at=NOW)))
    assert [(f.id, f.severity) for f in found] == [("cuda-visible-devices-hides-gpus", "warning")]
    assert found[0].evidence[-1].path == "environment.variables.CUDA_VISIBLE_DEVICES"
    assert found[0].evidence[-1].value == "2"
    assert _found(error) == set(), "without the variable the line alone names no cause"


def test_a_torch_wheel_or_conda_build_in_a_package_list_states_the_build() -> None:
    table = (
        "| NVIDIA-SMI 535.54.03              Driver Version: 535.54.03    CUDA Version: 12.2     |\n"
        "|   0  NVIDIA A100-SXM4-80GB          On  | 00000000:07:00.0 Off |                    0 |\n"
        "| N/A   31C    P0              60W / 400W |      4MiB / 81920MiB |      0%      Default |\n"
    )
    pip_list = "Package    Version\n---------- ---------\ntorch      2.1.0+cpu\n"
    conda = "# packages in environment at /opt/conda:\npytorch   2.1.0   py3.10_cpu_0   pytorch\n"
    cuda = "torch==2.1.0+cu118\nnumpy==1.26.0\n"
    assert _found(table + pip_list) == {("cpu-only-build-on-gpu-host", "error")}
    assert _found(table + conda) == {("cpu-only-build-on-gpu-host", "error")}
    assert _found(table + cuda) == set()


def test_torch_04s_cudnn_mismatch_wording_is_the_same_shadowing() -> None:
    """DA_Detection#19 (blind4): torch 0.4 printed "mismatch" and integer versions (7102 = 7.1.2)."""
    text = "RuntimeError: cuDNN version mismatch: PyTorch was compiled against 7102 but linked against 7600\n"
    assert _found(text) == {("ld-library-path-shadowing", "error")}
    # a sentence about cuDNN versions, without torch's words, is no finding
    assert not _found(text.replace("PyTorch was compiled against", "I compiled with") + "torch 0.4.1\n")
