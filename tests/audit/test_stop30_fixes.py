"""Fixes after measurement rounds 472-479 (#22, stop 30), each with the real files and a twin.

- leanquant 0.1.1 (round 477): cupy is listed only as the ``cuda11``/``cuda12`` extras (two builds of the same
  package) and imported at the top of ``leanquant_utils.py``, which the root ``__init__.py`` imports at its
  top: importing leanquant imports cupy, so its CuPy kernels are required, not an opt-in extra's.
- denoiser 0.1.5 (round 475): ``requirements.txt`` pins ``torch==1.5.1`` while setup.py requires
  ``torch>=1.5``; pip installs what setup.py says, so the pin is a development environment's.
- mambavision 1.2.0 (round 478): mamba-ssm (and causal-conv1d) had no row in the knowledge base.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from envsnap.audit import audit, parse_target, scan_tree
from envsnap.audit.knowledge import alternative_for_distribution, alternative_for_import
from tests.audit.conftest import project


def _risk(tree: Path | str, target: str) -> str:
    return audit(scan_tree(str(tree)), None, parse_target(target)).verdict.risk


def test_cupy_loaded_by_the_package_root_one_module_down_is_required() -> None:
    tree = project("real-leanquant")
    assert _risk(tree, "rocm:gfx942") == "moderate"
    assert _risk(tree, "xpu") == "higher"
    assert _risk(tree, "mps") == "higher"


def _one_hop(root: Path, extras: list[str], root_imports: bool) -> Path:
    package = root / "quant"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(
        "from .kernels import decode\n" if root_imports else "__version__ = '0.1'\n", encoding="utf-8"
    )
    (package / "kernels.py").write_text(
        "import torch\nimport cupy as cp\n\n"
        "KERNEL = cp.RawKernel(\n"
        "    r'''extern \"C\" __global__ void dec(float* x) { x[threadIdx.x] = 0; }''', 'dec'\n)\n\n"
        "def decode(x):\n    return x\n",
        encoding="utf-8",
    )
    info = root / "quant-0.1.dist-info"
    info.mkdir()
    lines = ["Metadata-Version: 2.1", "Name: quant", "Version: 0.1", "Requires-Dist: torch"]
    for extra in extras:
        lines += [f"Provides-Extra: {extra}", f'Requires-Dist: cupy-{extra}x; extra == "{extra}"']
    (info / "METADATA").write_text("\n".join(lines) + "\n\n", encoding="utf-8")
    return root


def test_the_twins_one_extra_or_no_eager_import_keep_cupy_optional(tmp_path: Path) -> None:
    """Two build extras and an eager import: required. One extra (it says whether), or a kernel module the
    root does not load at its top: the extra's opt-in, one level lower."""
    assert _risk(_one_hop(tmp_path / "both", ["cuda11", "cuda12"], True), "xpu") == "higher"
    assert _risk(_one_hop(tmp_path / "single", ["cuda12"], True), "xpu") == "moderate"
    assert _risk(_one_hop(tmp_path / "lazy", ["cuda11", "cuda12"], False), "xpu") == "moderate"


def test_a_requirements_pin_beside_a_setup_py_that_names_torch_is_not_what_installs(tmp_path: Path) -> None:
    tree = project("real-denoiser")
    for target in ("rocm:gfx942", "xpu", "mps"):
        report = audit(scan_tree(str(tree)), None, parse_target(target))
        assert report.verdict.risk == "lower", (target, report.verdict.reasons)
        assert not [f for f in report.findings if f.rule == "torch-pin"]
    # Twin: a setup.py that reads requirements.txt and names no torch of its own keeps the pin.
    twin = tmp_path / "denoiser"
    shutil.copytree(tree, twin)
    setup = (twin / "setup.py").read_text(encoding="utf-8")
    (twin / "setup.py").write_text(
        setup.replace("    'torch>=1.5',\n", "").replace("    'torchaudio>=0.5',\n", ""), encoding="utf-8"
    )
    assert "torch>" not in (twin / "setup.py").read_text(encoding="utf-8")
    findings = audit(scan_tree(str(twin)), None, parse_target("xpu")).findings
    pins = [f for f in findings if f.rule == "torch-pin"]
    assert pins
    assert pins[0].location.startswith("requirements")


def test_mamba_ssm_and_causal_conv1d_are_known_cuda_kernel_packages() -> None:
    for name, module in (
        ("mamba-ssm", "mamba_ssm.ops.selective_scan_interface"),
        ("causal-conv1d", "causal_conv1d"),
    ):
        row = alternative_for_distribution(name)
        assert row is not None
        assert row is alternative_for_import(module)
        assert row.targets["rocm"].risk == "lower"
        assert row.targets["other"].risk == "moderate"
        assert all(entry.source for entry in row.targets.values())


def test_a_required_mamba_ssm_import_is_moderate_off_cuda_and_ported_on_rocm() -> None:
    tree = project("real-mambapy")
    assert _risk(tree, "xpu") == "moderate"
    assert _risk(tree, "mps") == "moderate"
    assert _risk(tree, "rocm:gfx942") == "lower"


RESIZE = """import torch


def _image(image):
    if image.device.type != "cuda" or torch.version.hip is not None:
        raise ValueError("image must be on an NVIDIA CUDA device")
    return image
"""


def test_a_check_that_raises_on_rocm_is_a_refusal_not_a_port(tmp_path: Path) -> None:
    """lanczos-triton 0.1.0 (round 484): its only ROCm test turns ROCm away; it was read as a ROCm path."""
    report = audit(scan_tree(str(project("real-lanczos-triton"))), None, parse_target("rocm:gfx942"))
    assert report.verdict.risk == "moderate"
    assert not report.verdict.supported
    assert report.findings[0].location == "lanczos_triton/resize.py:30"
    assert report.findings[0].meaning.startswith("A check that raises refuses a ROCm build")
    # Twins: the same test with a ROCm path in the body (a port), and on XPU (no refusal there).
    tree = tmp_path / "resize"
    (tree / "resize").mkdir(parents=True)
    (tree / "resize" / "__init__.py").write_text(RESIZE, encoding="utf-8")
    assert _risk(tree, "rocm:gfx942") == "moderate"
    assert _risk(tree, "xpu") == "lower"
    (tree / "resize" / "__init__.py").write_text(
        RESIZE.replace(
            '        raise ValueError("image must be on an NVIDIA CUDA device")\n',
            "        image = image.float()\n",
        ),
        encoding="utf-8",
    )
    ported = audit(scan_tree(str(tree)), None, parse_target("rocm:gfx942"))
    assert ported.verdict.risk == "lower"
    assert ported.verdict.supported


def test_metal_shaders_beside_triton_kernels_are_the_apple_backend() -> None:
    """late-interaction-kernels 0.4.5 (round 484): Triton MaxSim kernels plus ``mps/_maxsim.metal``; the
    shaders were read as the project's only GPU kernels, moderate on ROCm and XPU."""
    tree = project("real-late-interaction-kernels")
    for target in ("rocm:gfx942", "xpu"):
        report = audit(scan_tree(str(tree)), None, parse_target(target))
        assert report.verdict.risk == "lower", target
        assert not [f for f in report.findings if f.rule == "metal-kernel"]


def test_metal_shaders_with_no_other_kernels_still_count(tmp_path: Path) -> None:
    """Twin: the same tree without its Triton modules keeps the metal-kernel finding."""
    tree = tmp_path / "lik"
    shutil.copytree(project("real-late-interaction-kernels"), tree)
    for path in tree.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        if "triton" in text:
            kept = [line for line in text.splitlines() if "triton" not in line]
            path.write_text("\n".join(kept) + "\n", encoding="utf-8")
    report = audit(scan_tree(str(tree)), None, parse_target("xpu"))
    assert [f.rule for f in report.findings if f.rule == "metal-kernel"] == ["metal-kernel"]
