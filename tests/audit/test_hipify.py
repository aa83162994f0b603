"""The HIPIFY inventory (#22): CUDA API calls mapped through HIPIFY's public tables, blockers with places.

The real case is the first 256 lines of TensorRT's fcPlugin.cpp (tests/data/hipify/SOURCE.md): a
cuBLASLt autotuning loop whose algorithm-enumeration calls have no hipBLASLt equivalent in HIPIFY's
CUBLAS table, next to calls that map one to one.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from envsnap.audit import audit, hipify, parse_target, scan_tree
from envsnap.render.audit import audit_markdown, render_audit
from envsnap.render.audit_json import audit_json
from envsnap.render.console import print_out
from tests.repo_scripts import load_script
from tests.security.test_25_08_markdown import assert_inert

DATA = Path(__file__).parents[1] / "data"
ROCM = parse_target("rocm:gfx942")
BLOCKED = {
    "cublasLtMatmulAlgoCapGetAttribute": (8, [222, 232, 244, 246, 248, 250, 252, 255]),
    "cublasLtMatmulAlgoCheck": (1, [86]),
    "cublasLtMatmulAlgoGetIds": (1, [199]),
    "cublasLtMatmulAlgoInit": (1, [215]),
}


def _script() -> Any:
    """scripts/hipify_tables.py, the generator of hipify.yaml."""
    return load_script("hipify_tables")


def test_inventory_of_a_real_cublaslt_autotuner() -> None:
    report = audit(scan_tree(str(DATA / "hipify"), workers=1), None, ROCM)
    inventory = report.hipify
    assert inventory is not None
    assert (inventory.used, inventory.mapped, inventory.deprecated, inventory.unsupported) == (14, 10, 0, 4)
    blocked = {api.name: api for api in inventory.apis if api.status == "unsupported"}
    assert set(blocked) == set(BLOCKED)
    for name, (count, lines) in BLOCKED.items():
        assert blocked[name].count == count
        assert blocked[name].where == tuple(f"fcPlugin.cpp:{line}" for line in lines)
        assert blocked[name].hip is None
        assert blocked[name].library == "cuBLAS / cuBLASLt"
    assert inventory.apis[0].status == "unsupported"  # blockers first
    mapped = {api.name: api for api in inventory.apis if api.status == "supported"}
    assert mapped["cublasLtMatmul"].hip == "hipblasLtMatmul"
    assert mapped["cublasLtMatmul"].where == ("fcPlugin.cpp:99",)
    assert (mapped["cudaEventRecord"].hip, mapped["cudaEventRecord"].count) == ("hipEventRecord", 2)
    assert (mapped["cublasLtMatrixLayoutCreate"].count, mapped["cublasLtMatmulDescCreate"].count) == (3, 2)
    assert any("CUBLAS_API_supported_by_HIP.md" in url for url in inventory.sources)
    assert all(url.startswith("https://github.com/ROCm/HIPIFY/blob/") for url in inventory.sources)
    # Each blocker is a finding with its place; they set the verdict with TensorRT's include.
    findings = [f for f in report.findings if f.rule == "hipify-unsupported"]
    assert sorted(f.location for f in findings) == sorted(f"fcPlugin.cpp:{v[1][0]}" for v in BLOCKED.values())
    assert {f.risk for f in findings} == {"higher"}
    assert report.verdict.risk == "higher"
    assert any(reason.startswith("hipify-unsupported: ") for reason in report.verdict.reasons)
    assert any(row.rule == "hipify-unsupported" and row.count == 4 for row in report.rollup.blockers)


def test_the_inventory_is_for_rocm_only() -> None:
    scan = scan_tree(str(DATA / "hipify"), workers=1)
    for target in ("cuda:sm_90", "xpu", "mps", "cpu"):
        report = audit(scan, None, parse_target(target))
        assert report.hipify is None
        assert not [f for f in report.findings if f.rule == "hipify-unsupported"]


def test_text_json_and_markdown_show_the_inventory(capsys: pytest.CaptureFixture[str]) -> None:
    report = audit(scan_tree(str(DATA / "hipify"), workers=1), None, ROCM)
    print_out(render_audit(report))
    text = " ".join(capsys.readouterr().out.split())  # the console wraps at its width
    assert "14 CUDA APIs used, 10 map to HIP (hipify), 4 have no HIP equivalent: " in text
    assert "cublasLtMatmulAlgoGetIds (cuBLAS / cuBLASLt) ×1 fcPlugin.cpp:199" in text
    assert "cublasLtMatmul → hipblasLtMatmul" in text
    data = json.loads(audit_json(report))
    assert data["hipify"]["unsupported"] == 4
    assert data["hipify"]["apis"][0]["hip"] is None
    markdown = audit_markdown(report)
    assert "## HIPIFY inventory" in markdown
    row = next(line for line in markdown.splitlines() if "`cublasLtMatmulAlgoGetIds`" in line)
    assert row.count(" | ") == 4
    assert "**none**" in row
    assert_inert(markdown)


def test_lookup_follows_the_table() -> None:
    assert hipify.lookup("cudaMallocHost") == hipify.Api(
        name="cudaMallocHost", family="runtime", status="supported", hip="hipHostMalloc"
    )
    variant = hipify.lookup("cublasSgemm_v2_64")
    assert variant is not None
    assert (variant.status, variant.hip) == ("supported", "hipblasSgemm_64")
    variant = hipify.lookup("cuMemAlloc_v2")
    assert variant is not None
    assert variant.hip == "hipMalloc"
    # A variant the table lists on its own row wins over its base.
    assert hipify.lookup("cuCtxGetDevice") is not None
    assert hipify.lookup("cuCtxGetDevice").status == "deprecated"  # type: ignore[union-attr]
    assert hipify.lookup("cuCtxGetDevice_v2").status == "unsupported"  # type: ignore[union-attr]
    assert hipify.lookup("cublasGetMatrix_64").status == "unsupported"  # type: ignore[union-attr]
    assert hipify.lookup("cudnnPoolingForward").status == "unsupported"  # type: ignore[union-attr]
    assert hipify.lookup("curand_init").hip == "hiprand_init"  # type: ignore[union-attr]
    assert hipify.lookup("cudaCheck") is None
    assert hipify.looks_like_cuda("cudaCheck")
    assert not hipify.looks_like_cuda("cuda_preprocess")


def test_the_data_file_is_what_the_script_writes() -> None:
    """hipify.yaml is canonical (the script's own rendering of its content) and self-consistent."""
    tables = _script()
    path = Path(hipify.__file__).with_name("data") / "hipify.yaml"
    text = path.read_text(encoding="utf-8")
    data = yaml.safe_load(text)
    families = {}
    for key, family in data["families"].items():
        config = tables.FAMILIES[key]
        assert {k: family[k] for k in config} == config
        assert len(family["commit"]) == 40
        same, unsupported = family["same"].split(), family["unsupported"].split()
        names = same + list(family["other"]) + unsupported
        assert len(names) == len(set(names)), key
        assert set(family["deprecated"].split()) <= set(same) | set(family["other"])
        folded = tables.Folded(same, dict(family["other"]), family["deprecated"].split(), unsupported)
        families[key] = (config, family["commit"], folded)
    assert tables.render(families) == text


ROWS = """\
## **1. CUDA Driver Data Types**

|**CUDA**|**A**|**D**|**C**|**R**|**HIP**|**A**|**D**|**C**|**R**|**U**|**E**|
|:--|:-:|:-:|:-:|:-:|:--|:-:|:-:|:-:|:-:|:-:|:-:|
|`CUDA_ARRAY3D_CUBEMAP`| | | | |`hipArrayCubemap`|1.7.0| | | | | |

## **8. Context Management**

|**CUDA**|**A**|**D**|**C**|**R**|**HIP**|**A**|**D**|**C**|**R**|**U**|**E**|
|:--|:-:|:-:|:-:|:-:|:--|:-:|:-:|:-:|:-:|:-:|:-:|
|`cuCtxGetDevice`| | | | |`hipCtxGetDevice`|1.6.0|1.9.0| | | | |
|`cuCtxGetDevice_v2`|13.0| | | | | | | | | | |
|`cuCtxGetLimit`| | | | |`hipDeviceGetLimit`|1.6.0| | | | | |

## **13. Memory Management**

|**CUDA**|**A**|**D**|**C**|**R**|**HIP**|**A**|**D**|**C**|**R**|**U**|**E**|
|:--|:-:|:-:|:-:|:-:|:--|:-:|:-:|:-:|:-:|:-:|:-:|
|`cuMemAlloc`| | | | |`hipMalloc`|1.5.0| | | | | |
|`cuMemAlloc_v2`| | | | |`hipMalloc`|1.5.0| | | | | |
|`cuMemcpy`| | | | | | | | | | | |

## **18. Stream Management**

|**CUDA**|**A**|**D**|**C**|**R**|**HIP**|**A**|**D**|**C**|**R**|**U**|**E**|
|:--|:-:|:-:|:-:|:-:|:--|:-:|:-:|:-:|:-:|:-:|:-:|
|`cuStreamGetCaptureInfo`|10.1| |13.0| |`hipStreamGetCaptureInfo`|5.0.0| | | |13.0| |
|`cuStreamGetCaptureInfo_v2`|11.3| | | |`hipStreamGetCaptureInfo_v2`|5.0.0| | | | | |

## **34. Coredump Attributes Control API**

|**CUDA**|**A**|**D**|**C**|**R**|**HIP**|**A**|**D**|**C**|**R**|**U**|**E**|
|:--|:-:|:-:|:-:|:-:|:--|:-:|:-:|:-:|:-:|:-:|:-:|
|`CUcoredumpStatusCallback`|13.2| | | | | | | | | | |
|`cuCoredumpGetAttribute`|12.1| | | | | | | | | | |

## **41. Direct3D 9 Interoperability**

|**CUDA**|**A**|**D**|**C**|**R**|**HIP**|**A**|**D**|**C**|**R**|**U**|**E**|
|:--|:-:|:-:|:-:|:-:|:--|:-:|:-:|:-:|:-:|:-:|:-:|
|`cuD3D9CtxCreate`| | | | | | | | | | | |
"""
"""Rows copied from HIPIFY's CUDA_Driver_API_functions_supported_by_HIP.md, under their section titles."""


def test_the_script_parses_and_folds_real_table_rows(tmp_path: Path) -> None:
    tables = _script()
    rows = tables.parse_table(ROWS)
    assert [row.name for row in rows] == [
        "cuCtxGetDevice",
        "cuCtxGetDevice_v2",
        "cuCtxGetLimit",
        "cuMemAlloc",
        "cuMemAlloc_v2",
        "cuMemcpy",
        "cuStreamGetCaptureInfo",
        "cuStreamGetCaptureInfo_v2",
        "cuCoredumpGetAttribute",
    ]  # data types, a type among functions, and Direct3D interop are left out
    folded = tables.fold(rows, ["cu", "hip"], ["_v2"])
    assert folded.same == ["cuCtxGetDevice", "cuStreamGetCaptureInfo", "cuStreamGetCaptureInfo_v2"]
    assert folded.other == {"cuCtxGetLimit": "hipDeviceGetLimit", "cuMemAlloc": "hipMalloc"}
    assert folded.deprecated == ["cuCtxGetDevice"]
    assert folded.unsupported == ["cuCoredumpGetAttribute", "cuCtxGetDevice_v2", "cuMemcpy"]
    # The command line: one clear line and exit 2 when a table is missing.
    assert tables.main([str(tmp_path), "--commit", "0" * 40]) == 2


def test_port_branches_and_existing_ports_are_not_hipify_work(tmp_path: Path) -> None:
    """Calls the ROCm build leaves out are not counted; a project with a ROCm port is not made higher."""
    (tmp_path / "ops.cu").write_text(
        "#include <cuda_runtime.h>\n"
        "__global__ void k(float* x) { x[0] = 1; }\n"
        "void run(float* x) {\n"
        "  cudaMalloc(&x, 4);\n"
        "#ifndef USE_ROCM\n"
        "  cudaFuncGetName(&name, k);\n"
        "#endif\n"
        "}\n"
    )
    report = audit(scan_tree(str(tmp_path), workers=1), None, ROCM)
    assert report.hipify is not None
    assert [api.name for api in report.hipify.apis] == ["cudaMalloc"]
    assert not [f for f in report.findings if f.rule == "hipify-unsupported"]

    (tmp_path / "ops.cu").write_text(
        "#include <cuda_runtime.h>\n"
        "__global__ void k(float* x) { x[0] = 1; }\n"
        "void run(float* x) {\n"
        "#if defined(USE_ROCM)\n"
        "  hipMalloc(&x, 4);\n"
        "#else\n"
        "  cudaMalloc(&x, 4);\n"
        "#endif\n"
        "  cuTensorMapEncodeTiled(&map, t, 2, x, dims, strides, box, el, il, sw, l2, oob);\n"
        "}\n"
    )
    report = audit(scan_tree(str(tmp_path), workers=1), None, ROCM)
    assert report.hipify is not None
    assert report.hipify.unsupported == 1
    assert report.hipify.apis[0].where == ("ops.cu:9",)
    assert report.verdict.supported
    assert report.verdict.risk != "higher"


def test_cudnn_calls_miopen_lacks_are_a_documented_swap_not_a_wall(tmp_path: Path) -> None:
    (tmp_path / "conv.cpp").write_text(
        "#include <cudnn.h>\n"
        "void f() {\n"
        "  cudnnCreate(&h);\n"
        "  cudnnConvolutionForward(h, &a, x, xd, w, wd, cd, algo, ws, n, &b, yd, y);\n"
        "  cudnnPoolingForward(h, pd, &a, xd, x, &b, yd, y);\n"
        "}\n"
    )
    report = audit(scan_tree(str(tmp_path), workers=1), None, ROCM)
    assert report.hipify is not None
    assert (report.hipify.mapped, report.hipify.unsupported) == (2, 1)
    (finding,) = [f for f in report.findings if f.rule == "hipify-unsupported"]
    assert (finding.location, finding.risk) == ("conv.cpp:5", "moderate")
    assert "MIOpen" in finding.meaning
    assert finding.source is not None
    assert finding.source.endswith("CUDNN_API_supported_by_MIOPEN.md")


def test_tests_and_examples_are_left_out_unless_asked(tmp_path: Path) -> None:
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "t.cu").write_text("void f() { cudaGetParameterBuffer(1, 2); }\n")
    scan = scan_tree(str(tmp_path), workers=1)
    assert audit(scan, None, ROCM).hipify is None
    counted = audit(scan, None, ROCM, include_tests=True).hipify
    assert counted is not None
    assert counted.unsupported == 1


def test_hostile_names_and_lines_never_reach_a_terminal_or_a_ticket(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    evil = "ev\x1b[31mil|`x`[bold]<img src=x onerror=alert(1)>"
    token = "hf_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z"
    (tmp_path / f"{evil}.cu").write_text(
        f'void f() {{ cudaMalloc(&p, 4); cudaFuncGetName(&n, k); /* x */ }} const char* t = "{token}";\n'
        + "void g() { cudaMalloc(&q, 8); } // \x1b[2J [link=http://x]click[/link] \u202e "
        + "y" * 5000
        + "\n"
    )
    report = audit(scan_tree(str(tmp_path), workers=1), None, ROCM)
    assert report.hipify is not None
    assert report.hipify.unsupported == 1
    print_out(render_audit(report))
    text = capsys.readouterr().out
    assert "\x1b" not in text
    assert "\u202e" not in text
    assert "[bold]" in text  # Rich markup in a file name stays text
    markdown = audit_markdown(report)
    assert "\x1b" not in markdown
    assert_inert(markdown)
    row = next(line for line in markdown.splitlines() if "`cudaFuncGetName`" in line)
    assert row.count(" | ") == 4
    for output in (text, markdown, audit_json(report)):
        assert token not in output
    assert "\x1b" not in audit_json(report)
    (finding,) = [f for f in report.findings if f.rule == "hipify-unsupported"]
    assert len(finding.code) <= 160


def test_a_flood_of_made_up_cuda_names_costs_little_and_is_capped(tmp_path: Path) -> None:
    calls = "".join(f"cudaMadeUp{i}(x); " for i in range(20_000))
    (tmp_path / "gen.cu").write_text("void f() { " + calls + "cu" + "A" * 200_000 + "(x); }\n")
    report = audit(scan_tree(str(tmp_path), workers=1), None, ROCM)
    assert report.hipify is not None
    assert report.hipify.used == 0
    assert len(report.hipify.unknown) == 20
