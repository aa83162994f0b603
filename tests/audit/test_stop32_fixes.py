"""Fixes in stop 32 (#22): held-out torch.compile cells and round 535's extras, with the real files and twins.

- ``torch.compile`` on MPS (Inductor's Metal prototype) is moderate only where it is the model's path. It is a
  switch (lower) where the eager callable stays bound beside the compiled one (inkan's
  ``bspline_basis_eager``, batch-nl's ``use_torch_compile``), and inside an ``optimize()`` method a caller
  opts into (wtpsplit). Corpus truths: all three lower on MPS; quad-torch's ``@torch.compile`` on every
  optimizer step stays moderate.
- Where every requirement is an extra's, the extras are the install's flavours (one is always chosen) only
  where one of them names a device or a framework (``xpu``, ``cuda124``, ``core-cu12``, ``pytorch``):
  hedgehog-dlm's ``train`` and ``infer`` are features, and vLLM in ``infer`` is optional. Corpus: rerankers'
  XPU cell (lower; a draw, kept aside) moved right with it; hedgehog-dlm's XPU cell stays moderate on its
  device pick.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from envsnap.audit import audit, parse_target, scan_tree
from envsnap.audit.model import AuditReport
from envsnap.audit.scanners.build import scan_metadata
from envsnap.audit.scanners.torch_pin import torch_pins
from tests.audit.conftest import project


def _report(tree: Path | str, target: str) -> AuditReport:
    return audit(scan_tree(str(tree)), None, parse_target(target))


def _compile_risks(report: AuditReport) -> list[str]:
    return [f.risk for f in report.findings if f.rule == "torch-compile-mps" and f.role == "core"]


@pytest.mark.parametrize("name", ["real-inkan", "real-batch-nl-torch", "real-wtpsplit"])
def test_an_optional_compile_is_lower_on_mps(name: str) -> None:
    report = _report(project(name), "mps")
    assert report.verdict.risk == "lower", report.verdict.reasons
    assert "moderate" not in _compile_risks(report)


def test_a_compile_on_every_step_stays_moderate_on_mps() -> None:
    report = _report(project("real-quad-torch"), "mps")
    assert report.verdict.risk == "moderate", report.verdict.reasons
    assert "moderate" in _compile_risks(report)


def _module(root: Path, body: str) -> Path:
    package = root / "fast"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "model.py").write_text("import torch\n\n" + body, encoding="utf-8")
    return root


@pytest.mark.parametrize(
    ("body", "risk"),
    [
        ("def run(model, x):\n    model = torch.compile(model)\n    return model(x)\n", "moderate"),
        ("class M:\n    def __init__(self, m):\n        self.m = torch.compile(self.m)\n", "moderate"),
        # A parameter's name ends with its function (pytorch-mppi's `torch.compile(dynamics)` in __init__).
        ("def run(model, x):\n    fast = torch.compile(model)\n    return fast(x)\n", "moderate"),
        ("def _step(x):\n    return x * 2\n\n\nstep = torch.compile(_step)\n", "lower"),
        ("class M:\n    def __init__(self):\n        self.fast = torch.compile(self.step)\n", "lower"),
        ("def run(model):\n    model = torch.compile(model, backend='inductor')\n", "moderate"),
        ("class S:\n    def optimize(self):\n        self.model = torch.compile(self.model)\n", "lower"),
        # The bare decorator is the same call (zeldarose's masking step; x-transformers, openrlhf, rl-games).
        ("@torch.compile\ndef step(x):\n    return x * 2\n", "moderate"),
        (
            "class S:\n    def enable_compile(self):\n"
            "        @torch.compile\n        def f(x):\n            return x\n",
            "lower",
        ),
        ("class S:\n    def optimizer_step(self):\n        self.m = torch.compile(self.m)\n", "moderate"),
    ],
)
def test_the_twins(tmp_path: Path, body: str, risk: str) -> None:
    assert _compile_risks(_report(_module(tmp_path, body), "mps")) == [risk]


def _metadata(extras: dict[str, list[str]]) -> str:
    lines = ["Metadata-Version: 2.4", "Name: pkg", "Version: 1.0"]
    for extra, requirements in extras.items():
        lines.append(f"Provides-Extra: {extra}")
        lines += [f'Requires-Dist: {requirement}; extra == "{extra}"' for requirement in requirements]
    return "\n".join(lines) + "\n\nThe README.\n"


def _optional_subjects(text: str) -> dict[str, bool]:
    return {s.subject: "optional=1" in s.detail for s in scan_metadata("pkg-1.0.dist-info/METADATA", text)}


def test_feature_extras_stay_optional_where_every_requirement_is_an_extras() -> None:
    # hedgehog-dlm 0.2.0 declares nothing required: dev, train (deepspeed) and infer (vllm) are features.
    text = (Path(project("real-hedgehog-dlm")) / "hedgehog_dlm-0.2.0.dist-info" / "METADATA").read_text()
    subjects = _optional_subjects(text)
    assert subjects["vllm"] is True
    assert subjects["deepspeed"] is True
    assert _optional_subjects(_metadata({"train": ["deepspeed"], "infer": ["vllm"]})) == {
        "deepspeed": True,
        "vllm": True,
    }


@pytest.mark.parametrize("extras", [("cpu", "cuda124"), ("core-cu12", "jax"), ("xpu", "serving")])
def test_build_flavours_still_count_as_the_install(extras: tuple[str, str]) -> None:
    # ipex-llm installs as ipex-llm[xpu] or [all], abracudabra as [cpu] or [cuda124]: one flavour is chosen.
    text = _metadata({extras[0]: ["torch"], extras[1]: ["cupy-cuda12x"]})
    assert _optional_subjects(text) == {"torch": False, "cupy-cuda12x": False}


def _choices(report: AuditReport) -> list[str]:
    return [f.meaning for f in report.findings if f.rule == "device-choices" and f.risk == "moderate"]


@pytest.mark.parametrize("target", ["xpu", "mps"])
def test_the_callers_device_kept_only_where_cuda_is_is_a_discard(target: str) -> None:
    # findcrack 0.1.8 (round 533): torch.device(device if torch.cuda.is_available() else "cpu").
    report = _report(project("real-findcrack"), target)
    assert report.verdict.risk == "moderate", report.verdict.reasons
    assert any("kept only where CUDA is available" in meaning for meaning in _choices(report))
    assert not _choices(_report(project("real-findcrack"), "rocm:gfx942"))


TEST = "torch.cuda.is_available()"


@pytest.mark.parametrize(
    ("body", "discarded"),
    [
        (f"def place(model, device='xpu'):\n    return model.to(device if {TEST} else 'cpu')\n", True),
        (
            "class P:\n    def __init__(self, device):\n"
            f"        self.device = torch.device(self.device if {TEST} else torch.device('cpu'))\n",
            True,
        ),
        (f"def place(model, args):\n    return model.to(args.device if {TEST} else 'cpu')\n", True),
        # A local the function made itself is no caller's choice; a literal pick is a selection rule's.
        (f"def place(model):\n    d = pick()\n    return model.to(d if {TEST} else 'cpu')\n", False),
        (f"def place(model, device):\n    return model.to(device if {TEST} else 'meta')\n", False),
    ],
)
def test_the_discard_twins(tmp_path: Path, body: str, discarded: bool) -> None:
    found = _choices(_report(_module(tmp_path, body), "xpu"))
    assert bool([m for m in found if "kept only where CUDA is available" in m]) is discarded, found


@pytest.mark.parametrize("target", ["xpu", "mps"])
def test_config_device_settings_reset_to_the_cpu_without_cuda_are_a_discard(target: str) -> None:
    # JoyRL 0.6.8 (round 537): `if not torch.cuda.is_available(): ... self.cfg.device = 'cpu'; ...; return`.
    report = _report(project("real-joyrl"), target)
    assert report.verdict.risk == "moderate", report.verdict.reasons
    assert any("kept only where CUDA is available" in meaning for meaning in _choices(report))


@pytest.mark.parametrize(
    ("body", "discarded"),
    [
        (
            f"class T:\n    def check(self):\n        if not {TEST}:\n            log('no CUDA')\n"
            "            self.cfg.device = 'cpu'\n            self.cfg.learner_device = 'cpu'\n"
            "            return\n",
            True,
        ),
        # A chain that picked mps and xpu first is the project's own ladder (fish-speech's web UI).
        (
            "def main(args):\n    if torch.backends.mps.is_available():\n        args.device = 'mps'\n"
            f"    elif torch.xpu.is_available():\n        args.device = 'xpu'\n    elif not {TEST}:\n"
            "        args.device = 'cpu'\n",
            False,
        ),
        # Anything but device settings set to the CPU in the branch is not this shape.
        (
            f"class T:\n    def check(self):\n        if not {TEST}:\n            self.cfg.device = 'cpu'\n"
            "            self.cfg.workers = 0\n",
            False,
        ),
    ],
)
def test_the_reset_twins(tmp_path: Path, body: str, discarded: bool) -> None:
    found = _choices(_report(_module(tmp_path, body), "xpu"))
    assert bool([m for m in found if "kept only where CUDA is available" in m]) is discarded, found


@pytest.mark.parametrize("target", ["xpu", "mps"])
def test_a_cuda_device_built_by_concatenation_is_hard_coded(target: str) -> None:
    # RLCard 1.2.0 (round 545): the DMC trainer's shared buffers go to `.to('cuda:'+str(device))`.
    report = _report(project("real-rlcard"), target)
    assert report.verdict.risk == "moderate", report.verdict.reasons
    assert [f for f in report.findings if f.rule == "hardcoded-cuda-device" and "dmc_agent" in f.location]


@pytest.mark.parametrize(
    ("call", "hard_coded"),
    [
        ("x.to('cuda:' + str(index))", True),
        ("torch.empty(3, device='cuda:' + rank)", True),
        ("x.to('cpu:' + str(index))", False),
        ("x.to(prefix + str(index))", False),
    ],
)
def test_the_concatenation_twins(tmp_path: Path, call: str, hard_coded: bool) -> None:
    body = f"def place(x, index, rank, prefix):\n    return {call}\n"
    found = [f for f in _report(_module(tmp_path, body), "xpu").findings if f.rule == "hardcoded-cuda-device"]
    assert bool(found) is hard_coded


def test_a_torch_pin_in_cibuildwheel_tables_sets_up_tests_not_installs() -> None:
    # exacta 0.0.1a5 (round 558): `before-test = "... pip install --index-url .../whl/cpu torch==2.4.1"`.
    text = (Path(project("real-exacta")) / "pyproject.toml").read_text(encoding="utf-8")
    assert "torch==2.4.1" in text
    assert not list(torch_pins("pyproject.toml", text))
    twin = (
        '[project]\ndependencies = ["torch==2.4.1"]\n\n'
        '[tool.cibuildwheel]\nbefore-test = "pip install torch==2.4.1"\n'
    )
    assert [s.line for s in torch_pins("pyproject.toml", twin)] == [2]


@pytest.mark.parametrize(
    ("target", "risk"), [("rocm:gfx942", "moderate"), ("xpu", "lower"), ("mps", "moderate")]
)
def test_faiss_gpu_has_a_row(tmp_path: Path, target: str, risk: str) -> None:
    # supertriplets 1.0.6 (round 562) requires faiss-gpu: CUDA wheels for Linux only, ROCm from source.
    (tmp_path / "pkg-1.0.dist-info").mkdir()
    (tmp_path / "pkg-1.0.dist-info" / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: pkg\nVersion: 1.0\n"
        "Requires-Dist: torch\nRequires-Dist: faiss-gpu\n\nREADME\n",
        encoding="utf-8",
    )
    found = [f for f in _report(tmp_path, target).findings if "Faiss GPU" in f.meaning]
    assert [f.risk for f in found] == [risk]


@pytest.mark.parametrize("target", ["xpu", "mps"])
def test_cupy_as_the_packages_only_array_library_is_higher_off_rocm(target: str) -> None:
    # nonconvexAG-GPU 1.0.8 (round 571): `import cupy as cp` atop every solver, no torch, JAX or TensorFlow.
    report = _report(project("real-nonconvexag-gpu"), target)
    assert report.verdict.risk == "higher", report.verdict.reasons
    assert any("only array library" in f.meaning for f in report.findings if f.rule == "cuda-only-import")
    assert _report(project("real-nonconvexag-gpu"), "rocm:gfx942").verdict.risk != "higher"


@pytest.mark.parametrize(
    ("files", "higher"),
    [
        ({"solve.py": "import cupy as cp\n\n\ndef solve(a):\n    return cp.linalg.solve(a, a)\n"}, True),
        # Beside a framework, CuPy is one helper of a model, not the package's array library.
        ({"solve.py": "import cupy as cp\n", "model.py": "import torch\n"}, False),
        # A module loaded only in a guard is one path of a NumPy package (pymatting's CuPy foreground).
        (
            {
                "solve.py": "import cupy as cp\n",
                "__init__.py": "try:\n    from pkg.solve import cp\nexcept ImportError:\n    cp = None\n",
            },
            False,
        ),
        ({"solve.py": "try:\n    import cupy as cp\nexcept ImportError:\n    import numpy as cp\n"}, False),
    ],
)
def test_the_array_library_twins(tmp_path: Path, files: dict[str, str], higher: bool) -> None:
    package = tmp_path / "pkg"
    package.mkdir()
    for name, body in {"__init__.py": "", **files}.items():
        (package / name).write_text(body, encoding="utf-8")
    found = [f for f in _report(tmp_path, "xpu").findings if "only array library" in f.meaning]
    assert bool(found) is higher
