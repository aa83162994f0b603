"""Fixes from blind round 4 (#22), each on an excerpt of the real project that showed it:

- a guard clause guards the rest of *any* block, not only a function body (accelerate's
  ``if not is_deepspeed_available(): raise ImportError`` inside an ``if``), and ``assert <device test>``
  is a guard clause (flash-linear-attention's ``assert device == 'cuda'``);
- ``cooperative_groups::labeled_partition`` does not exist in HIP (gsplat's warp reductions);
- a ROCm port whose only evidence is a build switch (``if torch.version.hip:`` in setup.py) hipifies the
  same sources, so code HIP cannot compile there breaks that build: not "already supported".
Each case keeps its twin that must not change.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from envsnap.audit import audit, parse_target, scan_tree
from envsnap.audit.judges import judge
from envsnap.audit.scanners.native import scan_native
from envsnap.audit.scanners.python import scan_python
from envsnap.audit.support import build_switch_only


def guarded(text: str, kind: str) -> list[bool]:
    """The ``guarded`` flag of each ``kind`` signal found in ``text``."""
    return [s.guarded for s in scan_python("m.py", text) if s.kind == kind]


# huggingface/accelerate src/accelerate/state.py @ b3a1aed (PartialState.__init__), trimmed to the branch
# (the error message string split in two to fit the line length).
ACCELERATE = """\
import os
import torch

def init(self, cpu, kwargs):
    if not cpu and self.backend != "xla":
        if int(os.environ.get("LOCAL_RANK", -1)) != -1:
            # Deal with spawning deepspeed
            if os.environ.get("ACCELERATE_USE_DEEPSPEED", "false") == "true":
                if not is_deepspeed_available():
                    raise ImportError(
                        "DeepSpeed is not available => install it using `pip3 install deepspeed` or build it"
                        " from source"
                    )
                from deepspeed import comm as dist
"""


def test_a_guard_clause_inside_a_nested_if_guards_the_rest_of_that_block() -> None:
    assert guarded(ACCELERATE, "import") == [True]


def test_without_the_guard_clause_the_same_import_is_unguarded() -> None:
    text = ACCELERATE.replace("                if not is_deepspeed_available():\n", "                if x:\n")
    assert guarded(text, "import") == [False]


@pytest.mark.parametrize("test", ["not torch.cuda.is_available()", "torch.cuda.device_count() == 0"])
def test_a_guard_clause_that_raises_without_cuda_guards_nothing(test: str) -> None:
    # The program needs CUDA: off CUDA it stops at the raise, so the import after it is still work.
    text = ACCELERATE.replace("not is_deepspeed_available()", test)
    assert guarded(text, "import") == [False]


def test_the_guard_clause_guards_only_its_own_block() -> None:
    text = ACCELERATE + "    from deepspeed import comm as dist2\n"
    assert guarded(text, "import") == [True, False]


# fla-org/flash-linear-attention fla/utils.py @ 03f7925, the torch < 2.4 branch.
FLA = """\
import torch
if check_pytorch_version('2.4'):
    def custom_device_ctx(index: int):
        return device_torch_lib.device(index)
else:
    assert device == 'cuda', 'Only cuda device is supported for PyTorch version < 2.4.0.'
    autocast_custom_fwd = device_torch_lib.amp.custom_fwd
    autocast_custom_bwd = device_torch_lib.amp.custom_bwd

    def custom_device_ctx(index: int):
        return torch.cuda.device(index)
"""


def test_an_assert_on_the_device_guards_what_follows_it() -> None:
    assert guarded(FLA, "cuda-api") == [True]


@pytest.mark.parametrize("test", ["index_ok", "torch.cuda.is_available()"])
def test_an_assert_on_something_else_guards_nothing(test: str) -> None:
    # `assert torch.cuda.is_available()` is what the program needs: off CUDA it stops there, and the
    # CUDA-only code after it is still code to change.
    text = FLA.replace("assert device == 'cuda'", f"assert {test}")
    assert guarded(text, "cuda-api") == [False]


@pytest.mark.parametrize("leave", ["continue", "break"])
def test_a_guard_clause_in_a_loop_guards_the_rest_of_the_loop_body(leave: str) -> None:
    text = "import torch\nfor d in devs:\n    if not torch.cuda.is_available():\n"
    text += f"        {leave}\n    torch.cuda.get_device_properties(d)\n"
    assert guarded(text, "cuda-api") == [True]


def test_a_guard_clause_in_a_with_block_guards_the_rest_of_it() -> None:
    text = "import torch\nwith lock:\n    if not is_amd():\n        raise SystemExit\n"
    text += "    torch.cuda.get_device_properties(0)\n"
    assert guarded(text, "cuda-api") == [True]


# nerfstudio-project/gsplat gsplat/cuda/csrc/fully_fused_projection_2dgs_bwd.cu @ b1697c2, the reduction.
GSPLAT_CU = """\
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;
template <typename T>
__global__ void fully_fused_projection_bwd_2dgs_kernel(const uint32_t gid, T *__restrict__ v_means) {
    // #if __CUDA_ARCH__ >= 700
    // write out results with warp-level reduction
    auto warp = cg::tiled_partition<32>(cg::this_thread_block());
    auto warp_group_g = cg::labeled_partition(warp, gid);
    if (v_means != nullptr) {
        warpSum(v_mean, warp_group_g);
    }
}
"""

# nerfstudio-project/gsplat setup.py @ 016db7d, the HIP branch of get_extensions().
GSPLAT_SETUP = """\
import torch
from torch.utils.cpp_extension import CUDAExtension

def get_extensions():
    define_macros = []
    undef_macros = []
    nvcc_flags = []
    if torch.version.hip:
        # USE_ROCM was added to later versions of PyTorch.
        # Define here to support older PyTorch versions as well:
        define_macros += [("USE_ROCM", None)]
        undef_macros += ["__HIP_NO_HALF_CONVERSIONS__"]
    else:
        nvcc_flags += ["--expt-relaxed-constexpr"]
    return [CUDAExtension("gsplat.csrc", ["gsplat/cuda/csrc/bwd.cu"], define_macros=define_macros)]
"""


def partitions(text: str) -> list[str]:
    return [s.code for s in scan_native("k.cu", text) if s.kind == "labeled-partition"]


def test_labeled_partition_is_found_and_is_higher_risk_on_rocm_only() -> None:
    signal = next(s for s in scan_native("k.cu", GSPLAT_CU) if s.kind == "labeled-partition")
    assert signal.code == "auto warp_group_g = cg::labeled_partition(warp, gid);"
    rocm = judge(signal, parse_target("rocm:gfx942"))
    assert rocm is not None
    assert rocm.rule == "cg-labeled-partition"
    assert rocm.risk == "higher"
    assert "gsplat/pull/798" in (rocm.source or "")
    # Off AMD the whole kernel is a rewrite already (the file's cuda-source finding), not this line.
    assert judge(signal, parse_target("xpu")) is None
    assert judge(signal, parse_target("cuda:sm_90")) is None


def test_tiled_partition_alone_and_commented_out_labeled_partition_are_not_hits() -> None:
    assert partitions(GSPLAT_CU.replace("cg::labeled_partition(warp, gid)", "warp")) == []
    assert partitions(GSPLAT_CU.replace("auto warp_group_g = cg::", "// auto warp_group_g = cg::")) == []


def test_labeled_partition_a_rocm_build_leaves_out_is_not_judged_on_rocm() -> None:
    text = GSPLAT_CU.replace(
        "    auto warp_group_g = cg::labeled_partition(warp, gid);\n",
        "#ifndef USE_ROCM\n    auto warp_group_g = cg::labeled_partition(warp, gid);\n#endif\n",
    )
    signal = next(s for s in scan_native("k.cu", text) if s.kind == "labeled-partition")
    assert judge(signal, parse_target("rocm:gfx942")) is None


def tree(root: Path, cu: str) -> Path:
    (root / "gsplat" / "cuda" / "csrc").mkdir(parents=True)
    (root / "setup.py").write_text(GSPLAT_SETUP, encoding="utf-8")
    (root / "gsplat" / "cuda" / "csrc" / "bwd.cu").write_text(cu, encoding="utf-8")
    return root


def test_a_build_switch_over_sources_hip_cannot_compile_is_higher_not_supported(tmp_path: Path) -> None:
    report = audit(scan_tree(str(tree(tmp_path, GSPLAT_CU))), None, parse_target("rocm:gfx942"))
    assert report.verdict.risk == "higher"
    assert report.verdict.reasons[0].startswith("a ROCm build switch, but its sources do not build on ROCm")
    assert any(f.rule == "breaks-rocm-build" and f.risk == "higher" for f in report.findings)


def test_a_source_level_rocm_port_still_covers_it_as_stays_cuda_only(tmp_path: Path) -> None:
    # The same kernel in a file that also carries a ROCm branch: the port is in the sources, so the
    # partition is the part that stays CUDA-only, as inline PTX is: named, to check, and the verdict is
    # the port's (lower; verdict.decide, measured on the blind rounds).
    ported = GSPLAT_CU.replace(
        "namespace cg = cooperative_groups;\n",
        "namespace cg = cooperative_groups;\n#ifdef USE_ROCM\n#include <hip/hip_runtime.h>\n#endif\n",
    )
    report = audit(scan_tree(str(tree(tmp_path, ported))), None, parse_target("rocm:gfx942"))
    assert report.verdict.risk == "lower"
    assert report.verdict.reasons[0].startswith("already supported on ROCm")
    assert [f.rule for f in report.findings if f.risk != "lower"] == ["stays-cuda-only"]
    assert report.verdict.cuda_only
    assert "labeled_partition" in report.verdict.cuda_only[0]
    assert any(line.startswith("to check on ROCm") for line in report.verdict.reasons)


def test_a_build_switch_over_sources_that_compile_stays_supported(tmp_path: Path) -> None:
    plain = GSPLAT_CU.replace("cg::labeled_partition(warp, gid)", "warp")
    report = audit(scan_tree(str(tree(tmp_path, plain))), None, parse_target("rocm:gfx942"))
    assert report.verdict.risk == "lower"
    assert report.verdict.reasons[0].startswith("already supported on ROCm")


@pytest.mark.parametrize(
    ("proof", "only"),
    [
        (("branches on torch.version.hip (setup.py:75)",), True),
        (("build switch is_rocm_pytorch (op_builder/mlp.py:30)", "names the 'hip' device (a.py:1)"), True),
        (
            ("ROCm preprocessor branch (1) (csrc/x.cuh:3)", "branches on torch.version.hip (setup.py:9)"),
            False,
        ),
        (("rocm backend folder hip_fmha/ (csrc/hip_fmha/a.h)",), False),
        (("names the 'hip' device (fla/utils.py:457)",), False),
        ((), False),
    ],
)
def test_build_switch_only_tells_a_build_switch_from_a_source_port(
    proof: tuple[str, ...], only: bool
) -> None:
    assert build_switch_only(proof) is only
