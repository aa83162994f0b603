"""Fixes from blind round 34 (#22), on an excerpt of the real project that showed it (torchrl 0.14.1 wheel;
PyPI, see tests/data/projects/real-torchrl/SOURCE.md):

- torchrl's opt-in Triton LSTM/GRU backend (``modules/tensordict_module/_rnn_triton.py``) imports triton only
  under ``if _has_triton:``, a module-level flag bound to ``_triton_version_at_least("2.2")`` (a read of the
  package's metadata). The import was read as unguarded: on MPS (no Triton build) "an import it needs has no
  build there" overrode the project's own MPS path, and torchrl on MPS was rated higher, documented lower
  (two levels off). An ``if`` whose flag names the imported package as present (``_has_triton``,
  ``HAS_FLASH_ATTN``, ``TRITON_AVAILABLE``) now guards that import, as ``is_triton_available()`` does.
The twin keeps its verdict: a flag that does not name the package (``if has_bias:``) guards nothing.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from envsnap.audit.scanners.python import scan_python
from envsnap.audit.scanners.python_shapes import presence_flag_for, presence_names
from tests.audit.conftest import audit_files

# torchrl 0.14.1 modules/tensordict_module/_rnn_triton.py, lines 53-64 (trimmed after the configs' start).
RNN_TRITON = """\
from torchrl._utils import _triton_version_at_least

# The kernels rely on Triton's libdevice ``tanh`` and on a backward path that
# uses ``tl.atomic_add`` with a 2-D mask, which older Triton compilers reject.
# Older installations fall back transparently to the ``scan`` / ``pad``
# backends.
_TRITON_MIN_VERSION = "2.2"

_has_triton = _triton_version_at_least(_TRITON_MIN_VERSION)

if _has_triton:
    import triton
    import triton.language as tl

    # BLOCK_K=16 is the smallest, dictating the minimum padded hidden size.
    _MIN_H_PAD = 16
"""
# torchrl 0.14.1 _utils.py, _make_ordinal_device (lines 1158-1167): the project's own MPS path.
UTILS = """\
import torch


def _make_ordinal_device(device):
    if device is None:
        return device
    device = torch.device(device)
    if device.type == "cuda" and device.index is None:
        return torch.device("cuda", index=torch.cuda.current_device())
    if device.type == "mps" and device.index is None:
        return torch.device("mps", index=0)
    return device
"""


def _torchrl(rnn: str = RNN_TRITON) -> dict[str, str]:
    return {
        "torchrl/__init__.py": "",
        "torchrl/_utils.py": UTILS,
        "torchrl/modules/__init__.py": "",
        "torchrl/modules/_rnn_triton.py": rnn,
    }


def _imports(text: str) -> list[tuple[str, bool]]:
    return [(s.subject, s.guarded) for s in scan_python("m/k.py", text) if s.kind == "import"]


def test_an_import_under_a_flag_naming_the_package_is_guarded() -> None:
    assert _imports(RNN_TRITON) == [("triton", True), ("triton.language", True)]


def test_torchrl_triton_backend_leaves_its_mps_path_standing(tmp_path: Path) -> None:
    result = audit_files(tmp_path, _torchrl(), "mps")
    assert result.verdict.risk == "lower"
    assert not any("has no build there" in reason for reason in result.verdict.reasons)


def test_a_flag_that_does_not_name_the_package_guards_nothing(tmp_path: Path) -> None:
    # Twin: `if has_bias:` is a model option, not a test that triton is installed.
    rnn = RNN_TRITON.replace("_has_triton", "has_bias")
    assert _imports(rnn) == [("triton", False), ("triton.language", False)]
    result = audit_files(tmp_path, _torchrl(rnn), "mps")
    assert "higher" in {f.risk for f in result.findings if f.code == "import triton"}
    # The project's MPS path still sets the verdict (a CUDA package binds no module to a device:
    # packages.BINDS_MODULE); the import is named first to check.
    assert result.verdict.risk == "lower"
    assert "import" in result.verdict.reasons[1]


@pytest.mark.parametrize(
    "flag", ["HAS_TRITON", "TRITON_AVAILABLE", "_TRITON_AVAILABLE", "triton_installed", "_has_triton"]
)
def test_the_usual_spellings_of_a_presence_flag(flag: str) -> None:
    text = f"{flag} = False\nif {flag}:\n    import triton\n"
    assert _imports(text) == [("triton", True)]


@pytest.mark.parametrize(
    "test",
    [
        "has_tri",  # a piece of the name, not the package
        "HAS_TE",  # no package named in it
        "triton_version",  # names the package, says nothing of presence
        "has_" + "x" * 5000,
        "hasattr(torch, 'cuda_has_triton_like_name')",  # a string, not a flag name
        "(lambda: 1)()",
        "not not not not x",
        "ñ_has_triton_ü is None",
    ],
)
def test_hostile_tests_guard_nothing_they_do_not_name(test: str) -> None:
    text = f"if {test}:\n    import triton\n"
    guarded = _imports(text)[0][1]
    assert guarded == ("ñ_has_triton_ü" in test)


def test_short_package_names_are_not_matched_inside_flags() -> None:
    # `te` (transformer_engine's usual alias) would be found in `has_tensors`: packages under four
    # characters are never read out of a flag.
    assert presence_flag_for("jax", [{"has_jax"}]) is None
    assert presence_flag_for("triton.language", [{"has_triton"}]) == "has_triton"
    assert presence_names(compile_test("a.b.HAS_APEX and c")) == {"has_apex"}


def test_deep_nesting_keeps_the_innermost_flag(tmp_path: Path) -> None:
    body = "import triton\n"
    for depth in range(60):
        body = f"if flag_{depth}:\n" + "".join(f"    {line}\n" for line in body.splitlines())
    text = "if _has_triton:\n" + "".join(f"    {line}\n" for line in body.splitlines())
    assert _imports(text) == [("triton", True)]


def compile_test(source: str) -> ast.expr:
    return ast.parse(source, mode="eval").body
