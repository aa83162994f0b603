"""Fixes after measurement rounds 84-87 (#22): a test on the CPU leaves every accelerator to its other branch.

``if cfg.device == "cpu": return torch.device("cpu") else: return torch.device("cuda", ...)`` and
``if device.type != "cpu": torch.cuda.memory_allocated(device)`` (sample-factory 2.1, round 61; ffcv's
normalisation in round 87 has the same shape): the non-CPU branch is XPU's and MPS's path too, not a CUDA
branch they skip. A device comparison was read as a guard for both branches. Twins: ``== "cuda"`` still
guards its body.
"""

from __future__ import annotations

import ast
from pathlib import Path

from envsnap.audit.scanners.python_shapes import cpu_comparison
from tests.audit.conftest import audit_files

# sample-factory 2.1.1 sample_factory/algo/utils/misc.py and shared_buffers.py (trimmed).
MISC = """\
import torch


def memory_stats(process, device):
    stats = {}
    if device.type != "cpu":
        gpu_mem_mb = torch.cuda.memory_allocated(device) / 1e6
        stats.update({f"gpu_mem_{process}": gpu_mem_mb})
    return stats
"""
BUFFERS = """\
import torch


def policy_device(cfg, policy_id):
    if cfg.device == "cpu":
        return torch.device("cpu")
    else:
        torch.cuda.set_device(policy_id)
        return torch.device("cuda", index=policy_id)
"""


def _cuda_api_risks(tmp_path: Path, name: str, text: str, target: str) -> list[str]:
    report = audit_files(tmp_path, {f"sample_factory/{name}": text}, target)
    return [f.risk for f in report.findings if f.rule == "torch-cuda-api"]


def test_the_non_cpu_branch_is_every_accelerators_path(tmp_path: Path) -> None:
    assert _cuda_api_risks(tmp_path / "b", "buffers.py", BUFFERS, "mps") == ["moderate"]
    # memory_allocated answers 0 without CUDA rather than raising (READS_EMPTY, round 94): lower either way.
    assert _cuda_api_risks(tmp_path / "a", "misc.py", MISC, "xpu") == ["lower"]
    raising = MISC.replace("torch.cuda.memory_allocated(device) / 1e6", "torch.cuda.mem_get_info(device)[0]")
    assert _cuda_api_risks(tmp_path / "c", "misc.py", raising, "xpu") == ["moderate"]


def test_twin_a_cuda_test_still_guards_its_body(tmp_path: Path) -> None:
    cuda = MISC.replace('if device.type != "cpu":', 'if device.type == "cuda":')
    cuda = cuda.replace("torch.cuda.memory_allocated(device) / 1e6", "torch.cuda.mem_get_info(device)[0]")
    assert _cuda_api_risks(tmp_path, "misc.py", cuda, "xpu") == ["lower"]


def test_cpu_comparisons() -> None:
    def of(source: str) -> str | None:
        statement = ast.parse(source).body[0]
        assert isinstance(statement, ast.If)
        return cpu_comparison(statement.test)

    assert of("if device == 'cpu': pass") == "eq"
    assert of("if x.device == torch.device('cpu'): pass") == "eq"
    assert of("if 'cpu' != device.type: pass") == "ne"
    assert of("if device == 'cuda': pass") is None
    assert of("if device in ('cpu', 'mps'): pass") is None
    assert of("if device == 'cpu' and x: pass") is None


# torch-fidelity 0.4.0 torch_fidelity/utils.py (create_feature_extractor, trimmed): a boolean `cuda` switch.
FIDELITY = """\
import torch


def create_feature_extractor(name, list_features, cuda=True, **kwargs):
    feat_extractor = FeatureExtractorInceptionV3(name, list_features, **kwargs)
    feat_extractor.eval()
    if cuda:
        feat_extractor.cuda()
    return feat_extractor
"""


def _hardcode_risks(tmp_path: Path, text: str, target: str) -> list[str]:
    report = audit_files(tmp_path, {"torch_fidelity/utils.py": text}, target)
    return [f.risk for f in report.findings if f.rule == "hardcoded-cuda-device"]


def test_a_boolean_cuda_switch_is_no_way_onto_another_gpu(tmp_path: Path) -> None:
    assert _hardcode_risks(tmp_path / "xpu", FIDELITY, "xpu") == ["moderate"]
    assert _hardcode_risks(tmp_path / "mps", FIDELITY, "mps") == ["moderate"]
    assert _hardcode_risks(tmp_path / "rocm", FIDELITY, "rocm:gfx942") == ["lower"]


def test_twin_an_availability_check_stays_a_fallback(tmp_path: Path) -> None:
    checked = FIDELITY.replace("    if cuda:\n", "    if torch.cuda.is_available():\n")
    assert _hardcode_risks(tmp_path, checked, "xpu") == ["lower"]


def test_cuda_switch_names() -> None:
    from envsnap.audit.scanners.python_shapes import cuda_switch

    def of(source: str) -> bool:
        statement = ast.parse(source).body[0]
        assert isinstance(statement, ast.If)
        return cuda_switch(statement.test)

    assert [of(f"if {t}: pass") for t in ("cuda", "self.use_cuda", "args.gpu and x", "use_gpu", "CUDA")] == [
        True
    ] * 5
    assert [
        of(f"if {t}: pass") for t in ("cuda_graphs", "x.is_cuda", "torch.cuda.is_available()", "gpus")
    ] == [False] * 4
