"""Device gates, discards and default ladders (#22 measurement rounds 54-75): closed sets of device names.

Misses of the rounds, one level off each, all from where a device name goes rather than from a CUDA call:
- **gates**: face-alignment 1.4.1 raises ``ValueError`` unless 'cpu', 'cuda' or 'mps' is in the device
  string (round 66), LitServe 0.2 accepts only auto/cpu/mps/cuda/gpu (round 54), nnU-Net v2 under
  TotalSegmentator asserts cpu/cuda/mps (round 72): *moderate* on XPU, read as *lower*;
- **discards**: panns-inference 0.1.1 keeps ``device`` only when it is 'cuda' and otherwise sets 'cpu'
  (round 70): an Intel or Apple GPU is never used, read as "the code takes the device from the caller";
- **defaults**: PyOD 3.6's encoder (round 75) and segment-geospatial 1.4's ``choose_device()`` (round 71)
  pick cuda, mps or cpu only where the caller gave no device, read as the only device path (*moderate* on
  XPU for *lower*).
Each has its twin that must keep its reading, and the readers get hostile text.
"""

from __future__ import annotations

import ast
from pathlib import Path

from envsnap.audit.scanners.device_gates import discarded_devices, gate_devices, unset_test
from envsnap.audit.scanners.python_trigger import trigger_lines
from tests.audit.conftest import audit_files


def _choices(tmp_path: Path, files: dict[str, str], target: str) -> list[tuple[str, str]]:
    report = audit_files(tmp_path, files, target)
    return [(f.risk, f.meaning) for f in report.findings if f.rule == "device-choices"]


# face-alignment 1.4.1 face_alignment/detection/core.py (FaceDetector.__init__, trimmed).
FACE_DETECTOR = """\
import logging
import torch


class FaceDetector(object):
    def __init__(self, device, verbose):
        self.device = device
        self.verbose = verbose

        if verbose:
            if 'cpu' in device:
                logger = logging.getLogger(__name__)
                logger.warning("Detection running on CPU, this may be potentially slow.")

        if 'cpu' not in device and 'cuda' not in device and 'mps' not in device:
            if verbose:
                logger.error("Expected values for device are: {cpu, cuda, mps} but got: %s", device)
            raise ValueError
"""


def test_a_substring_gate_refuses_xpu(tmp_path: Path) -> None:
    found = _choices(tmp_path, {"face_alignment/detection/core.py": FACE_DETECTOR}, "xpu")
    assert [risk for risk, _ in found] == ["moderate"]
    assert "raises on any other" in found[0][1]
    assert "'xpu'" in found[0][1]


def test_the_same_gate_admits_mps(tmp_path: Path) -> None:
    assert _choices(tmp_path, {"face_alignment/detection/core.py": FACE_DETECTOR}, "mps") == []


def test_twin_a_gate_that_names_xpu_lets_it_through(tmp_path: Path) -> None:
    text = FACE_DETECTOR.replace(
        "and 'mps' not in device:", "and 'mps' not in device and 'xpu' not in device:"
    )
    assert _choices(tmp_path, {"face_alignment/detection/core.py": text}, "xpu") == []


def test_twin_a_membership_test_that_only_logs_is_no_gate(tmp_path: Path) -> None:
    text = FACE_DETECTOR.replace("            raise ValueError\n", "            pass\n")
    assert _choices(tmp_path, {"face_alignment/detection/core.py": text}, "xpu") == []


# LitServe 0.2.x litserve/connector.py (_sanitize_accelerator and the devices check, trimmed).
CONNECTOR = """\
from typing import Optional, Union


class _Connector:
    def _check_device_config(self):
        if self._accelerator in ("cuda", "mps"):
            if not isinstance(self._devices, int):
                raise ValueError("devices must be an integer when using 'cuda' or 'mps'")
        elif self._accelerator != "cpu":
            raise ValueError(f"accelerator must be one of (cuda, mps, cpu), instead got {self._accelerator}")

    @staticmethod
    def _sanitize_accelerator(accelerator: Optional[str]):
        if isinstance(accelerator, str):
            accelerator = accelerator.lower()

        if accelerator not in ["auto", "cpu", "mps", "cuda", "gpu", None]:
            raise ValueError(f"accelerator must be one of auto, cpu, mps, cuda, gpu: {accelerator}")
        return accelerator
"""


def test_an_accelerator_list_and_an_elif_chain_are_gates(tmp_path: Path) -> None:
    found = _choices(tmp_path, {"litserve/connector.py": CONNECTOR}, "xpu")
    assert [risk for risk, _ in found] == ["moderate", "moderate"]
    assert _choices(tmp_path, {"litserve/connector.py": CONNECTOR}, "mps") == []


# nnU-Net v2 as vendored by TotalSegmentator 2.x (totalsegmentator/nnunet.py, trimmed), and its validator.
NNUNET = """\
import torch


def nnUNet_predict_image(device="cuda"):
    assert device in ['cpu', 'cuda',
                      'mps'] or isinstance(device, torch.device), f'-device: cpu, mps or cuda, not {device}.'
    if device == 'cpu':
        torch.set_num_threads(4)
"""
VALIDATOR = """\
import re


def validate_device_type_api(value):
    valid_strings = ["cuda", "cpu", "mps"]
    if value in valid_strings:
        return value
    if re.match(r"^gpu:(\\d+)$", value):
        return value
    raise ValueError(f"Invalid device type: '{value}'. Must be 'gpu', 'cpu', 'mps', or 'gpu:X'.")


"""


def test_an_assert_and_a_validator_function_are_gates(tmp_path: Path) -> None:
    # (TotalSegmentator's own validator admits gpu/cpu/mps: no trigger token on its lines, so the per-file
    # scan never reads it; the nnU-Net assert under it is the gate envsnap reports.)
    files = {"totalsegmentator/nnunet.py": NNUNET, "totalsegmentator/python_api.py": VALIDATOR}
    found = _choices(tmp_path, files, "xpu")
    assert [risk for risk, _ in found] == ["moderate", "moderate"]
    assert _choices(tmp_path, files, "mps") == []


def test_twin_an_assert_on_a_mode_is_no_gate() -> None:
    tree = ast.parse("assert mode in ['train', 'eval']\nassert device in ['cpu', 'cuda', 'xpu', 'mps']\n")
    assert [gate_devices(node, lambda _: None) for node in tree.body if isinstance(node, ast.Assert)] == [
        None,
        ["cpu", "cuda", "xpu", "mps"],
    ]


# panns-inference 0.1.1 panns_inference/inference.py (AudioTagging.__init__, trimmed).
PANNS = """\
import torch


class AudioTagging(object):
    def __init__(self, model=None, checkpoint_path=None, device='cuda'):
        if device == 'cuda' and torch.cuda.is_available():
            self.device = 'cuda'
        else:
            self.device = 'cpu'
        self.model = model
        checkpoint = torch.load(checkpoint_path, map_location=self.device)
        if 'cuda' in str(self.device):
            self.model.to(self.device)
"""


def test_a_device_kept_only_when_cuda_is_a_discard(tmp_path: Path) -> None:
    for target in ("xpu", "mps"):
        found = _choices(tmp_path, {"panns_inference/inference.py": PANNS}, target)
        assert [risk for risk, _ in found] == ["moderate"], target
        assert "replaced by the CPU" in found[0][1]
    assert _choices(tmp_path, {"panns_inference/inference.py": PANNS}, "rocm:gfx942") == []


def test_twin_a_cpu_fallback_that_keeps_the_callers_device_is_no_discard() -> None:
    # `device` kept as given unless it asks for CUDA on a machine without it: 'xpu' passes through.
    kept = ast.parse(
        "if device == 'cuda' and not torch.cuda.is_available():\n"
        "    device = 'cpu'\nelse:\n    device = device\n"
    ).body[0]
    other = ast.parse("if device == 'cuda':\n    self.device = 'cuda'\nelse:\n    other = 'cpu'\n").body[0]
    assert isinstance(kept, ast.If)
    assert isinstance(other, ast.If)
    assert discarded_devices(kept) is None  # the else keeps a name, not the CPU
    assert discarded_devices(other) is None  # a different target: not the same setting


# PyOD 3.6.7 pyod/utils/encoders/huggingface.py (HuggingFaceEncoder, trimmed).
PYOD = """\
import torch
from transformers import AutoModel


class HuggingFaceEncoder:
    def __init__(self, model_name, device=None):
        self.model_name = model_name
        self.device = device

    def _load_model(self):
        if self.device is None:
            if torch.cuda.is_available():
                self.device_ = torch.device('cuda')
            elif hasattr(torch.backends, 'mps') and torch.backends.mps.is_available():
                self.device_ = torch.device('mps')
            else:
                self.device_ = torch.device('cpu')
        else:
            self.device_ = torch.device(self.device)
        self.model_ = AutoModel.from_pretrained(self.model_name).to(self.device_)
"""


def test_a_ladder_that_fills_only_a_missing_device_is_a_default(tmp_path: Path) -> None:
    found = _choices(tmp_path, {"pyod/utils/encoders/huggingface.py": PYOD}, "xpu")
    assert [risk for risk, _ in found] == ["lower"]
    assert "only where the caller gave no device" in found[0][1]


def test_twin_the_same_ladder_as_the_only_path_stays_moderate(tmp_path: Path) -> None:
    text = PYOD.replace("        if self.device is None:\n", "        if True:\n")
    found = _choices(tmp_path, {"pyod/utils/encoders/huggingface.py": text}, "xpu")
    assert [risk for risk, _ in found] == ["moderate"]


# segment-geospatial 1.4.2: samgeo/common.py choose_device (trimmed) and samgeo/samgeo2.py's constructor.
COMMON = """\
import os


def choose_device(empty_cache: bool = True, quiet: bool = True):
    import torch

    os.environ["PYTORCH_ENABLE_MPS_FALLBACK"] = "1"
    if torch.cuda.is_available():
        device = torch.device("cuda")
    elif torch.backends.mps.is_available():
        device = torch.device("mps")
    else:
        device = torch.device("cpu")
    return device
"""
SAMGEO2 = """\
from samgeo import common


class SamGeo2:
    def __init__(self, model_id="sam2-hiera-large", device=None, empty_cache=True):
        if device is None:
            device = common.choose_device(empty_cache=empty_cache)
        self.device = device
"""


def test_a_ladder_function_called_only_without_a_device_is_a_default(tmp_path: Path) -> None:
    files = {"samgeo/common.py": COMMON, "samgeo/samgeo2.py": SAMGEO2}
    assert [risk for risk, _ in _choices(tmp_path, files, "xpu")] == ["lower"]


def test_a_call_behind_the_callers_device_in_an_unparsed_file_is_a_default_too(tmp_path: Path) -> None:
    # samgeo/caption.py: no trigger token, so only the text pass reads it.
    caption = "from samgeo.common import choose_device\n\n\ndef caption(device=None):\n"
    caption += "    device = device if device else choose_device()\n    return device\n"
    files = {"samgeo/common.py": COMMON, "samgeo/samgeo2.py": SAMGEO2, "samgeo/caption.py": caption}
    assert [risk for risk, _ in _choices(tmp_path, files, "xpu")] == ["lower"]


def test_twin_one_unconditional_call_keeps_the_ladder_the_path(tmp_path: Path) -> None:
    # `device = common.choose_device()` has no trigger token: the per-file scan misses it, the text pass not.
    caller = SAMGEO2 + "\n\ndef predict(image):\n    device = common.choose_device()\n    return device\n"
    files = {"samgeo/common.py": COMMON, "samgeo/samgeo2.py": caller}
    assert [risk for risk, _ in _choices(tmp_path, files, "xpu")] == ["moderate"]


def test_the_unset_test_counts_as_a_trigger_only_before_a_device_call() -> None:
    assert trigger_lines(SAMGEO2.encode()) == [6]
    one_line = b"def f(device=None):\n    if device is None: device = get_default_device_of()\n"
    assert trigger_lines(one_line) == [2]
    plain = b"def f(device=None):\n    if device is None:\n        device = 'cpu'\n"
    assert trigger_lines(plain) == []


def test_unset_tests() -> None:
    def test_of(source: str) -> tuple[bool, bool]:
        statement = ast.parse(source).body[0]
        assert isinstance(statement, ast.If)
        return unset_test(statement.test)

    assert test_of("if device is None: pass") == (True, False)
    assert test_of("if not self.device: pass") == (True, False)
    # "auto" asks the project to choose (since stop 33): the caller named no device.
    assert test_of("if args.device == 'auto': pass") == (True, False)
    assert test_of("if args.device != 'auto': pass") == (False, True)
    assert test_of("if device is not None: pass") == (False, True)
    assert test_of("if self.device: pass") == (False, True)
    assert test_of("if model is None: pass") == (False, False)
    assert test_of("if device == 'cuda': pass") == (False, False)


def test_gate_readers_on_hostile_text(tmp_path: Path) -> None:
    # Escapes, markup and a huge list in a gate's device names: read as names or refused, never printed raw.
    huge = ", ".join(f"'x{i}'" for i in range(5000))
    text = (
        "def check(device):\n"
        "    if device not in ['cpu', 'cuda', '\\x1b[2J']:\n"
        "        raise ValueError('[bold]no[/bold]')\n"
        f"    if device not in ['cpu', 'cuda', {huge}]:\n"
        "        raise ValueError\n"
        "    assert device in ['cpu', 'cuda', '[red]mps[/red]']\n"
        "    if torch.cuda.is_available():\n"
        "        pass\n"
    )
    assert _choices(tmp_path, {"pkg/check.py": text}, "xpu") == []
    tree = ast.parse("assert device in ['cpu', 'cuda', 7]\nassert device in [*DEVICES]\n")
    assert [gate_devices(n, lambda _: None) for n in tree.body if isinstance(n, ast.Assert)] == [None, None]
