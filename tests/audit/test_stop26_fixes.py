"""Fixes after measurement rounds 288-295 (#22, stop 26), each with the real files and a twin.

- metal-gauss 0.2.1 (round 293): Gaussian-splatting training on Apple silicon, its rasterizer, SSIM and Adam
  written as Metal shaders (``metal_gauss/csrc/*.metal``) with no CUDA anywhere: read as standard ops on ROCm
  and XPU (*lower* for *higher*, two levels off), because the audit looked only for CUDA to port. Then
  mps-pointops 1.0.0 (round 314), Metal point-cloud ops that run torch versions on other devices, came out
  *higher* for *lower*: *higher* needs the project's own code to bind the 'mps' device.
- diffsynth 2.1.12 (round 291): ``if torch.version.cuda is None or tuple(int(v) for v in
  torch.version.cuda.split(".")[:2]) < (13, 0):`` in its comfy-kitchen backend read as a CUDA-version parse
  that raises on ROCm (*moderate* for *lower*); the ``is None or`` skips the parse where the version is None.
- diffrp 0.2.7 (round 293): renders through nvdiffrast (a required ``diffrp-nvdiffrast``, imported at module
  level), CUDA kernels for NVIDIA GPUs only, which the knowledge table did not know (*moderate* for *higher*
  on XPU and MPS); tiny-cuda-nn, the other NVIDIA-only neural-graphics library, came with it.
- smolagents 1.26.0 (round 312, the draw): torch only in extras, ``torch`` (torch, torchvision, numpy) and
  ``vllm`` (vllm, torch); the smallest was taken as the PyTorch path, so the opt-in vLLM engine read as
  required (*moderate* for *lower* everywhere).
"""

from __future__ import annotations

import shutil
from pathlib import Path

from envsnap.audit import audit, parse_target, scan_tree
from envsnap.audit.scanners.build import scan_metadata
from envsnap.audit.scanners.python import scan_python
from envsnap.audit.scanners.python_trigger import trigger_lines
from tests.audit.conftest import project

CSRC = "metal_gauss/csrc"


def _copy_csrc(root: Path) -> Path:
    shutil.copytree(Path(project("real-metal-gauss")) / CSRC, root / CSRC)
    return root


def test_metal_shaders_that_are_the_only_kernels_do_not_run_off_apple(tmp_path: Path) -> None:
    scanned = scan_tree(str(_copy_csrc(tmp_path)))
    for target in ("rocm:gfx942", "xpu"):
        report = audit(scanned, None, parse_target(target))
        metal = [f for f in report.findings if f.rule == "metal-kernel"]
        assert len(metal) == 1, target
        assert "5 .metal files" in metal[0].meaning
        # No code binds a device: ops that get the caller's tensors may fall back to torch (mps-pointops).
        assert report.verdict.risk == "moderate", target
    # The trainer that binds the Apple device makes the project's GPU path Apple's.
    shutil.copy(Path(project("real-metal-gauss")) / "metal_gauss/train.py", tmp_path / "train.py")
    bound = audit(scan_tree(str(tmp_path)), None, parse_target("xpu"))
    metal = [f for f in bound.findings if f.rule == "metal-kernel"]
    assert "binds the 'mps' device (train.py:" in metal[0].meaning
    assert bound.verdict.risk == "higher"
    mps = audit(scanned, None, parse_target("mps"))
    assert not any(f.rule == "metal-kernel" for f in mps.findings)
    assert mps.verdict.risk == "lower"
    assert mps.verdict.supported


def test_the_whole_project_is_higher_off_apple_and_lower_on_it() -> None:
    scanned = scan_tree(project("real-metal-gauss"))
    risks = {t: audit(scanned, None, parse_target(t)).verdict.risk for t in ("rocm:gfx942", "xpu", "mps")}
    assert risks == {"rocm:gfx942": "higher", "xpu": "higher", "mps": "lower"}


def test_a_compared_or_mps_modules_device_is_no_binding(tmp_path: Path) -> None:
    # The twins of the binding: a device test, and an MPS-named module's own device (mps-pointops'
    # `_ball_query_mps.py` allocates on 'mps' for its Metal kernel), leave the caller's device in charge.
    _copy_csrc(tmp_path)
    (tmp_path / "ops.py").write_text(
        'def knn(x):\n    if x.device.type == "mps":\n        return _metal(x)\n    return _torch(x)\n',
        encoding="utf-8",
    )
    (tmp_path / "_knn_mps.py").write_text(
        'import torch\n\nWIDTH = torch.empty(1, device="mps")\n', encoding="utf-8"
    )
    assert audit(scan_tree(str(tmp_path)), None, parse_target("xpu")).verdict.risk == "moderate"


def test_beside_cuda_kernels_the_shaders_are_their_mps_port(tmp_path: Path) -> None:
    # The twin: the same shaders beside a CUDA kernel (llama.cpp's, mmcv's, quanto's layout) are the Apple
    # port of that kernel; the CUDA source is what is judged on ROCm and XPU.
    _copy_csrc(tmp_path)
    (tmp_path / "csrc").mkdir()
    (tmp_path / "csrc" / "adam.cu").write_text(
        "__global__ void adam(float* p, const float* g, int n) {\n"
        "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "  if (i < n) p[i] -= 0.001f * g[i];\n"
        "}\n",
        encoding="utf-8",
    )
    scanned = scan_tree(str(tmp_path))
    for target in ("rocm:gfx942", "xpu"):
        report = audit(scanned, None, parse_target(target))
        assert not any(f.rule == "metal-kernel" for f in report.findings), target


def test_a_backend_of_the_targets_own_is_no_metal_only_tree(tmp_path: Path) -> None:
    # The twin: a SYCL backend folder beside the shaders is the project's XPU port.
    _copy_csrc(tmp_path)
    (tmp_path / "sycl").mkdir()
    (tmp_path / "sycl" / "adam.cpp").write_text(
        "#include <sycl/sycl.hpp>\nvoid adam(sycl::queue& q, float* p, const float* g, int n) {\n"
        "  q.parallel_for(sycl::range<1>(n), [=](sycl::id<1> i) { p[i] -= 0.001f * g[i]; });\n}\n",
        encoding="utf-8",
    )
    scanned = scan_tree(str(tmp_path))
    xpu = audit(scanned, None, parse_target("xpu"))
    assert not any(f.rule == "metal-kernel" for f in xpu.findings)
    rocm = audit(scanned, None, parse_target("rocm:gfx942"))
    assert [f.rule for f in rocm.findings if f.rule == "metal-kernel"] == ["metal-kernel"]


def _version_parses(text: str) -> list[int | None]:
    data = text.encode()
    return [s.line for s in scan_python("m.py", text, trigger_lines(data)) if s.kind == "cuda-api"]


def test_a_cuda_version_parse_after_is_none_or_never_runs_where_it_is_none() -> None:
    path = Path(project("real-diffsynth")) / "diffsynth/core/quant/backends/comfy_kitchen.py"
    line = path.read_text(encoding="utf-8").splitlines()[204]
    assert line.strip().startswith("if torch.version.cuda is None or tuple(int(v)")
    body = "import torch\n\n\ndef setup(ck):\n" + line + "\n" + '            ck.registry.disable("cuda")\n'
    body = body.replace("        if torch", "    if torch").replace("            ck.", "        ck.")
    assert _version_parses(body) == []
    report = audit(scan_tree(project("real-diffsynth")), None, parse_target("rocm:gfx942"))
    assert not any(f.rule == "torch-cuda-api" and f.risk != "lower" for f in report.findings)
    assert report.verdict.risk == "lower"


def test_the_other_forms_of_the_test_guard_and_the_wrong_polarity_does_not() -> None:
    parse = 'int(torch.version.cuda.split(".")[0]) >= 12'
    assert _version_parses(f"import torch\nNEW = not torch.version.cuda or {parse}\n") == []
    assert _version_parses(f"import torch\nNEW = torch.version.cuda is not None and {parse}\n") == []
    assert _version_parses(f"import torch\nNEW = torch.version.cuda and {parse}\n") == []
    # The twins: no test first, or a test that lets the parse run exactly where the version is None.
    assert _version_parses(f"import torch\nNEW = {parse}\n") == [2]
    assert _version_parses(f"import torch\nNEW = torch.version.cuda is None and {parse}\n") == [2]
    assert _version_parses(f"import torch\nNEW = torch.version.cuda is not None or {parse}\n") == [2]


def test_nvdiffrast_is_a_cuda_only_package() -> None:
    scanned = scan_tree(project("real-diffrp"))
    for target in ("xpu", "mps"):
        report = audit(scanned, None, parse_target(target))
        nvdiffrast = [f for f in report.findings if "nvdiffrast" in f.meaning and f.risk == "higher"]
        assert {f.rule for f in nvdiffrast} == {"cuda-only-import", "cuda-only-requirement"}, target
        assert report.verdict.risk == "higher", target
    # On ROCm the rasterizer is a torch extension that a ROCm torch hipifies at build: moderate, as any.
    rocm = audit(scanned, None, parse_target("rocm:gfx942"))
    assert rocm.verdict.risk == "moderate"
    assert any("hipifies" in f.replacement for f in rocm.findings if "nvdiffrast" in f.meaning)


def _tree(root: Path, body: str) -> str:
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "__init__.py").write_text("", encoding="utf-8")
    (root / "pkg" / "field.py").write_text(body, encoding="utf-8")
    return str(root)


def test_tiny_cuda_nn_at_module_level_is_higher_and_behind_a_guard_is_not(tmp_path: Path) -> None:
    imported = _tree(tmp_path / "a", "import tinycudann as tcnn\n\nENCODING = tcnn.Encoding\n")
    report = audit(scan_tree(imported), None, parse_target("xpu"))
    assert report.verdict.risk == "higher"
    assert any("tiny-cuda-nn" in f.meaning for f in report.findings)
    # The twin: nerfstudio's shape, an optional fast path with a torch fallback.
    guarded = _tree(
        tmp_path / "b",
        "try:\n    import tinycudann as tcnn\nexcept ImportError:\n    tcnn = None\n\n"
        "FAST = tcnn is not None\n",
    )
    assert audit(scan_tree(guarded), None, parse_target("xpu")).verdict.risk != "higher"


def _optional(metadata: str) -> dict[str, bool]:
    return {s.subject: "optional=1" in s.detail for s in scan_metadata("METADATA", metadata)}


def test_an_extra_named_for_torch_is_the_torch_path_whatever_its_size() -> None:
    path = Path(project("real-smolagents")) / "smolagents-1.26.0.dist-info/METADATA"
    found = _optional(path.read_text(encoding="utf-8"))
    assert found["vllm"] is True  # the vllm extra is an option, not the PyTorch path
    assert found["torchvision"] is False  # the torch extra is
    for target in ("rocm:gfx942", "xpu", "mps"):
        assert (
            audit(scan_tree(project("real-smolagents")), None, parse_target(target)).verdict.risk == "lower"
        )


def test_without_an_extra_named_for_torch_the_smallest_is_still_the_path() -> None:
    # The twin: replay-rec's shape, torch only in a neural extra that is not named for torch.
    metadata = (
        "Metadata-Version: 2.1\nName: demo\n"
        'Requires-Dist: torch; extra == "neural"\n'
        'Requires-Dist: lightning; extra == "neural"\n'
        'Requires-Dist: torch; extra == "all"\n'
        'Requires-Dist: lightning; extra == "all"\n'
        'Requires-Dist: vllm; extra == "all"\n\nREADME\n'
    )
    found = scan_metadata("METADATA", metadata)
    neural = [s for s in found if s.subject == "lightning" and "neural" in s.code]
    assert neural
    assert "optional=1" not in neural[0].detail


def test_flashinfer_at_module_level_is_higher_off_nvidia(tmp_path: Path) -> None:
    # tokasaurus 0.0.4 (round 320, two off and left) serves through a pinned flashinfer-python.
    engine = _tree(
        tmp_path / "a", "import flashinfer\n\nATTENTION = flashinfer.BatchPrefillWithPagedKVCacheWrapper\n"
    )
    (tmp_path / "a" / "requirements.txt").write_text("flashinfer-python==0.2.0.post2\n", encoding="utf-8")
    for target in ("rocm:gfx942", "xpu", "mps"):
        report = audit(scan_tree(engine), None, parse_target(target))
        assert report.verdict.risk == "higher", target
        assert any("FlashInfer" in f.meaning for f in report.findings), target


def test_a_binding_counts_in_a_module_whose_name_only_contains_mps(tmp_path: Path) -> None:
    # "mps" inside a word (timestamps.py) names no MPS module: the binding there is the project's own.
    _copy_csrc(tmp_path)
    (tmp_path / "timestamps.py").write_text('DEVICE = None\ndevice = "mps"\n', encoding="utf-8")
    assert audit(scan_tree(str(tmp_path)), None, parse_target("xpu")).verdict.risk == "higher"
