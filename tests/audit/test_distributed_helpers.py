"""DETR's distributed helpers run only in multi-process runs (#22 blind round 37, GroundingDINO 0.4).

DETR's ``util/misc.py``, copied into GroundingDINO, Deformable DETR, DINO and their kin, returns early from
``synchronize_between_processes`` when no process group is up, then builds a float64 buffer on 'cuda' and
all-reduces it; its ``init_distributed_mode`` returns in the single-process branch of an
``if "WORLD_SIZE" in os.environ ... elif "SLURM_PROCID" ... else: return`` chain, then calls
``torch.cuda.set_device`` and ``init_process_group``. A single-device run on XPU or MPS reaches neither; both
were read as the main path (moderate). Twins: an exit on another test, or one that raises, keeps the
function a path every run takes; a function with no collective keeps its 'cuda'.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from envsnap.audit.model import AuditReport
from tests.audit.conftest import audit_files

# GroundingDINO 0.4.0 groundingdino/util/misc.py (trimmed: imports, SmoothedValue, the distributed set-up).
MISC = '''\
import os
import torch
import torch.distributed as dist


def is_dist_avail_and_initialized():
    if not dist.is_available():
        return False
    if not dist.is_initialized():
        return False
    return True


class SmoothedValue(object):
    def synchronize_between_processes(self):
        """
        Warning: does not synchronize the deque!
        """
        if not is_dist_avail_and_initialized():
            return
        t = torch.tensor([self.count, self.total], dtype=torch.float64, device="cuda")
        dist.barrier()
        dist.all_reduce(t)
        t = t.tolist()
        self.count = int(t[0])
        self.total = t[1]


def init_distributed_mode(args):
    if "WORLD_SIZE" in os.environ and os.environ["WORLD_SIZE"] != "":  # 'RANK' in os.environ and
        args.rank = int(os.environ["RANK"])
        args.world_size = int(os.environ["WORLD_SIZE"])
        args.gpu = args.local_rank = int(os.environ["LOCAL_RANK"])
    elif "SLURM_PROCID" in os.environ:
        args.rank = int(os.environ["SLURM_PROCID"])
        args.gpu = args.local_rank = int(os.environ["SLURM_LOCALID"])
        args.world_size = int(os.environ["SLURM_NPROCS"])
    else:
        print("Not using distributed mode")
        args.distributed = False
        args.world_size = 1
        args.rank = 0
        args.local_rank = 0
        return

    print("world_size:{} rank:{} local_rank:{}".format(args.world_size, args.rank, args.local_rank))
    args.distributed = True
    torch.cuda.set_device(args.local_rank)
    args.dist_backend = "nccl"
    torch.distributed.init_process_group(
        backend=args.dist_backend,
        world_size=args.world_size,
        rank=args.rank,
        init_method=args.dist_url,
    )
'''


def _audit(tmp_path: Path, text: str, target: str) -> AuditReport:
    return audit_files(tmp_path, {"groundingdino/util/misc.py": text}, target)


def _raised(report: AuditReport) -> list[str]:
    return sorted(f"{f.rule}@{f.location}" for f in report.findings if f.risk != "lower")


@pytest.mark.parametrize("target", ["xpu", "mps"])
def test_detr_distributed_helpers_are_multi_process_only(tmp_path: Path, target: str) -> None:
    report = _audit(tmp_path, MISC, target)
    assert _raised(report) == []
    assert report.verdict.risk == "lower"
    buffer = [f for f in report.findings if f.location.endswith(":21")]
    assert {f.rule for f in buffer} >= {"hardcoded-cuda-device"}
    assert all(
        "multi-process" in f.meaning or "single" in f.meaning for f in buffer if f.rule != "float64-on-xpu"
    )


@pytest.mark.parametrize("target", ["xpu", "mps"])
def test_twin_an_exit_on_another_test_keeps_the_cuda_buffer(tmp_path: Path, target: str) -> None:
    text = MISC.replace("if not is_dist_avail_and_initialized():", "if self.count == 0:")
    assert "hardcoded-cuda-device@groundingdino/util/misc.py:21" in _raised(_audit(tmp_path, text, target))


def test_twin_an_exit_that_raises_keeps_the_set_up_on_every_path(tmp_path: Path) -> None:
    text = MISC.replace(
        '        print("Not using distributed mode")\n', '        raise RuntimeError("no launcher")\n'
    )
    assert "torch-cuda-api@groundingdino/util/misc.py:48" in _raised(_audit(tmp_path, text, "xpu"))


def test_twin_no_process_group_keeps_set_device(tmp_path: Path) -> None:
    text = MISC.replace("    torch.distributed.init_process_group(", "    print(").replace(
        "        backend=args.dist_backend,\n", ""
    )
    assert "torch-cuda-api@groundingdino/util/misc.py:48" in _raised(_audit(tmp_path, text, "xpu"))


def test_a_huge_distributed_test_is_read_without_trouble(tmp_path: Path) -> None:
    test = " and ".join(["is_dist_avail_and_initialized()"] * 5_000)
    text = MISC.replace("if not is_dist_avail_and_initialized():", f"if not ({test}):")
    report = _audit(tmp_path, text, "xpu")
    assert _raised(report) == []
