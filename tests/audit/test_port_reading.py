"""Port-aware reading (#22): preprocessor branches, asm dialects, device data-flow, roles, self-imports."""

from __future__ import annotations

from pathlib import Path

import pytest

from envsnap.audit import audit, parse_target, scan_tree
from envsnap.audit.roles import role_of
from envsnap.audit.scanners.asm_dialect import dialect
from envsnap.audit.scanners.native import scan_native
from envsnap.audit.scanners.preproc import branches
from envsnap.audit.scanners.python import scan_python
from envsnap.audit.scanners.python_trigger import triggered
from tests.audit.conftest import at, project


def kinds(signals: object) -> list[tuple[str, int | None, str]]:
    return [(s.kind, s.line, s.subject) for s in signals]  # type: ignore[attr-defined]


# ---------------------------------------------------------------------------- preprocessor branches

BRANCHED = """#include <stdio.h>
#if defined(__HIP_PLATFORM_AMD__) || defined(__HIPCC__)
#include <hip/hip_runtime.h>
#else
#include <cublasLt.h>
__device__ void f() { asm volatile("mov.u32 %0, %%laneid;" : "=r"(x)); }
#endif
#ifndef USE_ROCM
#define WARP_SIZE 32U
#endif
__global__ void k() {}
"""


def test_branches_tell_rocm_only_from_excluded_code() -> None:
    lines = branches(BRANCHED)
    assert lines.rocm_switches == 2
    assert [lines.at(n) for n in (1, 3, 5, 6, 9, 11)] == [
        "shared",
        "rocm-only",
        "not-rocm",
        "not-rocm",
        "not-rocm",
        "shared",
    ]


def test_elif_after_a_rocm_branch_is_not_rocm() -> None:
    text = "#if defined(USE_ROCM)\nA\n#elif defined(FOO)\nB\n#else\nC\n#endif\n"
    lines = branches(text)
    assert [lines.at(n) for n in (2, 4, 6)] == ["rocm-only", "not-rocm", "not-rocm"]


def test_excluded_cuda_branch_is_not_judged_on_rocm_but_is_elsewhere(tmp_path: Path) -> None:
    (tmp_path / "k.cu").write_text(BRANCHED)
    scan = scan_tree(str(tmp_path))
    signals = {(s.kind, s.line): s for s in scan.signals}
    assert "branch=not-rocm" in signals[("inline-ptx", 6)].detail
    rocm = audit(scan, None, parse_target("rocm:gfx942"))
    assert at(rocm.findings, "inline-ptx") == []
    assert at(rocm.findings, "warp-size-32") == []
    assert rocm.verdict.risk == "lower"
    assert "ROCm preprocessor branch" in rocm.verdict.supported[0]
    xpu = audit(scan, None, parse_target("xpu"))
    assert xpu.verdict.risk == "higher"  # a CUDA/HIP kernel is still no Intel kernel


# ---------------------------------------------------------------------------- asm dialects


@pytest.mark.parametrize(
    ("block", "expected"),
    [
        ('asm volatile("mov.u32 %0, %%laneid;" : "=r"(x));', "ptx"),
        ('asm volatile("cp.async.bulk.tensor.2d [%0], [%1];" :: "r"(a), "l"(b));', "ptx"),
        ('__asm__ __volatile__("cpuid" : "=a"(a), "=b"(b) : "a"(leaf));', "x86"),
        ('asm volatile("dmb ish" ::: "memory");', "arm"),
        ('asm volatile("s_waitcnt lgkmcnt(0)" ::: "memory");', "amdgcn"),
        ('asm volatile("" ::: "memory");', "barrier"),
    ],
)
def test_asm_dialects(block: str, expected: str) -> None:
    start = block.index("(") + 1
    assert dialect(block[start:]) == expected


def test_x86_asm_in_a_c_file_is_not_cuda_code() -> None:
    text = 'static void cpuid(int* a) { __asm__ __volatile__("cpuid" : "=a"(a[0]) : "a"(0)); }\n'
    assert list(scan_native("cpu_features.c", text)) == []


def test_amd_assembly_is_evidence_of_a_rocm_port() -> None:
    text = '__global__ void k() { asm volatile("s_waitcnt vmcnt(0)" ::: "memory"); }\n'
    found = kinds(scan_native("k.hip.cu", text))
    assert ("port", 1, "rocm") in found
    assert not any(kind == "inline-ptx" for kind, _, _ in found)


# ---------------------------------------------------------------------------- blind spots (#22 item 6)


def test_warp_size_spellings_and_cuda_only_apis_are_seen() -> None:
    text = (
        "#define WARP_SIZE 32U\n"
        "constexpr int kWarpSize = 32;\n"
        "#include <cudnn_frontend.h>\n"
        "#include <cufile.h>\n"
        '__global__ void k(float* p) { float v = __ldcs(p); __stcg(p, v); nvtxRangePush("x"); }\n'
        "void g() { cublasLtOrder_t o = CUBLASLT_ORDER_COL32; cuFileRead(h, b, n, 0, 0); }\n"
    )
    found = kinds(scan_native("k.cu", text))
    assert ("warp32-mask", 1, "#define WARP_SIZE 32U") in found
    assert any(kind == "warp32-mask" and line == 2 for kind, line, _ in found)
    assert ("cuda-library", 3, "cuDNN frontend") in found
    assert ("cuda-library", 4, "cuFile (GPUDirect Storage)") in found
    assert {kind for kind, _, _ in found} >= {"cache-hint", "nvtx", "cufile", "cublaslt-layout"}


def test_cudnn_frontend_is_not_advised_as_miopen(tmp_path: Path) -> None:
    (tmp_path / "conv.cpp").write_text("#include <cudnn_frontend.h>\nvoid f() { cudnnCreate(&h); }\n")
    rocm = audit(scan_tree(str(tmp_path)), None, parse_target("rocm"))
    frontend = next(f for f in rocm.findings if f.rule == "cuda-library")
    assert frontend.risk == "higher"
    assert "no cudnn_frontend graph API" in frontend.replacement


def test_makefiles_are_scanned(tmp_path: Path) -> None:
    (tmp_path / "Makefile").write_text("NVCC := nvcc\ntrain: train.cu\n\t$(NVCC) -O3 -arch=sm_90a train.cu\n")
    scan = scan_tree(str(tmp_path))
    assert {"cmake-cuda", "gencode"} <= {s.kind for s in scan.signals}


# ---------------------------------------------------------------------------- device data-flow (#22 item 2)

DEVICES = """import argparse
import torch

DEVICE_BACKENDS = {"cuda": "nccl", "xpu": "xccl"}
KINDS = ["cuda", "cpu"]
device = "cuda"


def run(model, device: str = "cuda"):
    return model.to(device)


def step(x):
    where = "cuda"
    y = x.to(where)
    with torch.autocast("cuda", enabled=False):
        y = y * 2
    return y.to("cuda")


parser = argparse.ArgumentParser()
parser.add_argument("--device", default="cuda")
pick = torch.accelerator.current_accelerator() if torch.accelerator.is_available() else "cuda"

if __name__ == "__main__":
    torch.zeros(1, device="cuda")
"""


def test_cuda_counts_only_where_it_reaches_a_device_argument() -> None:
    found = [(s.kind, s.line, s.guarded) for s in scan_python("m.py", DEVICES)]
    hard = [(line, guarded) for kind, line, guarded in found if kind == "device-hardcode"]
    # line 14 (a local name that reaches .to()), line 18 (.to("cuda")), line 26 (a demo block: guarded)
    assert hard == [(14, False), (18, False), (26, True)]
    defaults = [line for kind, line, _ in found if kind == "device-default"]
    assert defaults == [6, 9, 22]
    assert not any(kind == "cuda-amp" for kind, _, _ in found)  # autocast("cuda", enabled=False)
    assert ("port", 4, True) in found  # a backend table that lists xpu


def test_one_line_hardcode_is_moderate_not_higher(tmp_path: Path) -> None:
    (tmp_path / "train.py").write_text('import torch\nmodel = torch.nn.Linear(2, 2).to("cuda")\n')
    result = audit(scan_tree(str(tmp_path)), None, parse_target("mps"))
    assert result.verdict.risk == "moderate"


def test_grad_scaler_and_compile_get_their_own_messages(tmp_path: Path) -> None:
    (tmp_path / "train.py").write_text(
        "import torch\nscaler = torch.cuda.amp.GradScaler()\nmodel = torch.compile(torch.nn.Linear(2, 2))\n"
    )
    result = audit(scan_tree(str(tmp_path)), None, parse_target("mps"))
    scaler = next(f for f in result.findings if f.rule == "cuda-grad-scaler")
    assert "GradScaler" in scaler.meaning
    assert "Autocast" not in scaler.meaning
    compiled = next(f for f in result.findings if f.rule == "torch-compile-mps")
    assert compiled.risk == "moderate"
    assert "prototype" in compiled.meaning


# ---------------------------------------------------------------------------- roles, self-imports, extras


@pytest.mark.parametrize(
    ("path", "role"),
    [
        ("src/pkg/model.py", "core"),
        ("tests/test_model.py", "tests"),
        ("pkg/model_test.py", "tests"),
        ("examples/community/trt_pipeline.py", "examples"),
        ("benchmarks/bench.py", "benchmarks"),
        ("docs/source/conf.py", "docs"),
        ("dev/scratch.py", "scratch"),
        ("third_party/cutlass/include/cutlass/gemm.h", "vendored"),
        ("smplpytorch/demo.py", "examples"),
        ("pkg/demo_video.py", "examples"),
        ("pkg/quantize_example.py", "examples"),
        ("torch_pruning/utils/benchmark.py", "benchmarks"),
        ("pkg/bench_attention.py", "benchmarks"),
        ("pkg/demographics.py", "core"),  # a name that starts like one, not a demo
        ("pkg/benchmarking_utils.py", "core"),
        ("pkg/examples_loader.py", "core"),
        ("cuequivariance_torch/_tests/utils.py", "tests"),  # test helpers shipped in the package
        ("pkg/_testing/fixtures.py", "tests"),
        ("pkg/_testers.py", "core"),
        ("parallel_examples/run_flux.py", "examples"),  # ParaAttention's example folders
        ("first_block_cache_examples/run_cogvideox.py", "examples"),
        ("pkg/integration_tests/test_x.py", "tests"),
        ("pkg/test_utils/helpers.py", "core"),  # a package's helpers for tests it ships, not its tests
        ("pkg/examples_loader/io.py", "core"),
    ],
)
def test_roles(path: str, role: str) -> None:
    assert role_of(path) == role


def test_examples_and_tests_do_not_set_the_verdict_unless_asked(tmp_path: Path) -> None:
    (tmp_path / "model.py").write_text("import torch\n\ndef f(x):\n    return torch.relu(x)\n")
    (tmp_path / "examples").mkdir()
    (tmp_path / "examples" / "trt_demo.py").write_text("import tensorrt\n")
    scan = scan_tree(str(tmp_path))
    plain = audit(scan, None, parse_target("rocm"))
    assert plain.verdict.risk == "lower"
    assert plain.not_counted == 1
    assert [f.role for f in plain.findings if f.rule == "cuda-only-import"] == ["examples"]
    assert audit(scan, None, parse_target("rocm"), include_tests=True).verdict.risk == "higher"


def test_the_project_importing_itself_is_not_a_cuda_dependency(tmp_path: Path) -> None:
    (tmp_path / "apex").mkdir()
    (tmp_path / "apex" / "__init__.py").write_text("")
    (tmp_path / "apex" / "fused.py").write_text(
        "import apex\nfrom apex.normalization import FusedLayerNorm\n"
    )
    scan = scan_tree(str(tmp_path))
    assert [s for s in scan.signals if s.kind == "import"] == []


def test_an_optional_extra_is_one_step_lower_than_a_requirement(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "p"\ndependencies = ["torch"]\n\n'
        '[project.optional-dependencies]\nfast = ["flash-attn>=2"]\n'
    )
    result = audit(scan_tree(str(tmp_path)), None, parse_target("xpu"))
    extra = next(f for f in result.findings if f.rule == "cuda-only-requirement")
    assert extra.risk == "lower"
    assert "optional extra" in extra.meaning


def test_exclude_globs_leave_paths_out(tmp_path: Path) -> None:
    (tmp_path / "vendor_kernels").mkdir()
    (tmp_path / "vendor_kernels" / "k.cu").write_text("__global__ void k() {}\n")
    (tmp_path / "main.py").write_text("import torch\n")
    assert scan_tree(str(tmp_path), exclude=("vendor_*",)).signals == ()
    assert scan_tree(str(tmp_path)).signals != ()


# ---------------------------------------------------------------------------- the prefilter (#22 item 9)


def test_prefilter_is_word_bounded() -> None:
    assert not triggered(b'"""Doubles the apex of the accelerator curve (NVIDIA-style)."""\nx = 1\n')
    assert triggered(b"x = y.double()\n")
    assert triggered(b"import apex\n")
    assert triggered(b"t = t.cuda()\n")
    assert triggered(b'device = "xpu"\n')


# ---------------------------------------------------------------------------- corpus: evidence named


def test_supported_projects_name_their_evidence_and_what_stays_cuda_only() -> None:
    llama = audit(scan_tree(project("port-llamacpp")), None, parse_target("xpu"))
    assert llama.verdict.risk == "lower"
    assert any("ggml-sycl/" in line for line in llama.verdict.supported)
    assert llama.verdict.reasons[0].startswith("already supported on Intel XPU")
    hopper = audit(scan_tree(project("port-fa3-hopper")), None, parse_target("rocm:gfx942"))
    assert hopper.verdict.risk == "higher"
    assert hopper.verdict.supported == ()
    ptx = next(f for f in hopper.findings if f.rule == "inline-ptx")
    assert ptx.count == 2
    assert ptx.risk == "higher"


def test_type_annotations_are_not_cuda_calls() -> None:
    text = (
        "import torch\n\n"
        "def get_graph(self, prefix: str = '') -> torch.cuda.CUDAGraph | None:\n"
        "    graph: torch.cuda.CUDAGraph | None = None\n"
        "    return graph\n"
    )
    assert [s for s in scan_python("m.py", text) if s.kind == "cuda-api"] == []


def test_a_large_tree_fits_a_screen_before_its_details(tmp_path: Path) -> None:
    """3,000 files in 60 folders, a hard-coded device in every fifth: the roll-up comes first and is short."""
    from rich.console import Console

    from envsnap.render.audit import render_audit

    for n in range(3000):
        folder = tmp_path / f"pkg{n % 60:02d}"
        folder.mkdir(exist_ok=True)
        body = 'import torch\nx = torch.zeros(1).to("cuda")\n' if n % 5 == 0 else "VALUE = 1\n"
        (folder / f"m{n}.py").write_text(body)
    report = audit(scan_tree(str(tmp_path)), None, parse_target("xpu"), top=10)
    assert report.files_seen == 3000
    # 600 hits in 12 folders (every fifth file lands in folders 0, 5, 10 ...), 50 each: the top 10 shown
    assert [row.count for row in report.rollup.components] == [50] * 10
    assert report.rollup.more_components == 2
    console = Console(width=120, record=True, color_system=None)
    console.print(render_audit(report))
    lines = console.export_text().splitlines()
    before_details = lines[: next(i for i, line in enumerate(lines) if line.startswith("Source ("))]
    assert len(before_details) <= 30, "\n".join(before_details)


def test_a_device_name_in_python_is_a_code_path_not_a_kernel_port(tmp_path: Path) -> None:
    """Weak evidence ('mps' in a comparison) sets the verdict but does not cover the CUDA kernels: they stay
    findings, named first to check (verdict.decide: measured on the blind rounds)."""
    (tmp_path / "k.cu").write_text(
        "__global__ void k(float* x) { x[0] = 1.f; }\nvoid launch() { k<<<1, 1>>>(0); }\n"
    )
    (tmp_path / "ops.py").write_text(
        "import torch\n\ndef run(x):\n    if x.device.type == 'mps':\n        return x * 2\n    return x\n"
    )
    result = audit(scan_tree(str(tmp_path)), None, parse_target("mps"))
    assert result.verdict.risk == "lower"
    assert result.verdict.reasons[0].startswith("has a code path on Apple MPS")
    assert result.verdict.reasons[1].startswith("to check on Apple MPS: cuda-source: k.cu:1")
    kernel = next(f for f in result.findings if f.rule == "cuda-source")
    assert kernel.risk == "higher"  # not claimed as built for MPS


def test_cuda_api_inventory_by_family() -> None:
    text = "void f() { cudaMalloc(&p, n); cudaFree(p); cublasSgemm(h); cudnnCreate(&d); }\n"
    source = next(s for s in scan_native("f.cpp", text) if s.kind == "cuda-source")
    assert source.facts()["api"] == "cuda:2,cublas:1,cudnn:1"


# torchvision 0.29.2 models/_meta.py (trimmed): the ImageNet categories hold "hip", the rose hip.
IMAGENET_CATEGORIES = """_IMAGENET_CATEGORIES = [
    "acorn",
    "lakeside",
    "hip",
    "buckeye",
    "coral fungus",
    "agaric",
    "gyromitra",
    "stinkhorn",
    "earthstar",
    "hen-of-the-woods",
]
"""


def test_a_word_list_that_holds_a_device_name_is_no_device_table() -> None:
    ports = [s for s in scan_python("torchvision/models/_meta.py", IMAGENET_CATEGORIES) if s.kind == "port"]
    assert ports == []
    # Twins: a table of device names, and a short list, still name the target.
    table = 'BACKENDS = ["cuda", "xpu", "mps", "cpu", "hip", "npu", "mlu", "hpu", "meta"]\n'
    found = sorted(s.subject for s in scan_python("backends.py", table) if s.kind == "port")
    assert found == ["mps", "rocm", "xpu"]
    pair = [s.subject for s in scan_python("pair.py", 'PAIR = ("cuda", "hip")\n') if s.kind == "port"]
    assert pair == ["rocm"]


def test_a_huge_word_list_and_nested_lists() -> None:
    # A 200,000-word list with one device word is a vocabulary; a short list nested in lists keeps its word.
    words = ", ".join(f'"w{n}"' for n in range(200_000))
    text = f'BIG = [{words}, "hip"]\nNESTED = [[[[["hip"] * 1] * 1] * 1] * 1]\n'
    ports = [s for s in scan_python("big.py", text) if s.kind == "port"]
    assert [s.line for s in ports] == [2]
