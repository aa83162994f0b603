"""Fixes from blind round 3: a test naming a backend guards, guard clauses guard what follows, and a
``try`` whose handlers swallow every error guards its body. Each case also keeps its unguarded twin."""

from __future__ import annotations

import pytest

from envsnap.audit.scanners.python import scan_python


def cuda_api(text: str) -> list[bool]:
    """The ``guarded`` flag of each CUDA-only torch call found in ``text``."""
    return [s.guarded for s in scan_python("m.py", "import torch\n" + text) if s.kind == "cuda-api"]


@pytest.mark.parametrize(
    "test",
    [
        "is_intel_xpu()",
        "torch.version.hip",
        "state == CPUState.MPS",
        'dev.type == "mps"',
        "is_amd()",
    ],
)
def test_a_branch_on_a_named_backend_guards_both_sides(test: str) -> None:
    text = f"def f(dev):\n    if {test}:\n        return 1\n    else:\n"
    text += "        return torch.cuda.mem_get_info(dev)\n"
    assert cuda_api(text) == [True]


@pytest.mark.parametrize("test", ["dumps(x)", "timestamps", "args.chip", 'name == "weights"'])
def test_words_that_merely_contain_a_backend_name_do_not_guard(test: str) -> None:
    text = f"def f(dev, x, args, name):\n    if {test}:\n        pass\n"
    text += "    return torch.cuda.mem_get_info(dev)\n"
    assert cuda_api(text) == [False]


def test_a_guard_clause_guards_the_rest_of_the_function() -> None:
    text = (
        "def amd_arch(device):\n"
        "    if not is_amd():\n"
        "        return False\n"
        "    return torch.cuda.get_device_properties(device).gcnArchName\n"
    )
    assert cuda_api(text) == [True]


def test_a_guard_clause_guards_only_what_follows_it() -> None:
    text = (
        "def f(device):\n"
        "    torch.cuda.mem_get_info()\n"
        "    if not is_amd():\n"
        "        return False\n"
        "    torch.cuda.get_device_properties(device)\n"
    )
    assert cuda_api(text) == [False, True]


def test_an_if_that_does_not_leave_is_no_guard_clause() -> None:
    text = "def f(device):\n    if is_amd():\n        print('amd')\n"
    text += "    torch.cuda.get_device_properties(device)\n"
    assert cuda_api(text) == [False]


@pytest.mark.parametrize("handler", ["except:\n    OOM = Exception", "except Exception:\n    pass"])
def test_a_try_that_swallows_every_error_guards_its_body(handler: str) -> None:
    assert cuda_api(f"try:\n    OOM = torch.cuda.mem_get_info()\n{handler}\n") == [True]


@pytest.mark.parametrize(
    "handler",
    [
        "except Exception:\n    raise SystemExit(1)",
        "except RuntimeError:\n    pass",
        "except:\n    log()\n    raise",
    ],
)
def test_a_try_that_reraises_or_catches_narrowly_guards_nothing(handler: str) -> None:
    assert cuda_api(f"try:\n    OOM = torch.cuda.mem_get_info()\n{handler}\n") == [False]
