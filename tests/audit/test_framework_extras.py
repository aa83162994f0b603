"""A framework library is built on its framework even where the framework is an extra (#22 rounds 45, 47).

dm-haiku 0.0.16 requires JAX only through its ``jax`` extra (``Requires-Dist: jax>=0.11.0; extra == "jax"``)
and imports it at the top of 103 modules; TensorFlow Probability 0.25 declares TensorFlow and JAX only as
extras and its distributions import ``tensorflow.compat.v2``, with JAX in one substrate module. Both were read
as "optional extra, the project runs without it" and rated LOWER on Intel and Apple GPUs, where JAX and
TensorFlow run only through plugins (moderate). TFP was also read as JAX computing with TensorFlow as its data
feed. Twins: a package one feature module imports stays optional (FastChat's flash-attn patch); a JAX project
reading data with tf.data keeps TensorFlow as its input pipeline. And Poetry's dependency tables
(``tensorflow = "2.12.1"``, spleeter 2.4), which were not read at all: an exact pin of TensorFlow on ROCm
is moderate (tensorflow-rocm must exist at that version), a range is AMD's documented install (lower).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from envsnap.audit import audit, parse_target, scan_tree
from envsnap.audit.scanners.build import scan_build
from envsnap.render.audit import audit_markdown, render_audit
from envsnap.render.audit_json import audit_json
from envsnap.render.console import print_out
from tests.audit.conftest import audit_files
from tests.audit.test_blind9_fixes import SPLEETER_PYPROJECT as SPLEETER_POETRY

# dm-haiku 0.0.16 METADATA (the Requires-Dist lines).
HAIKU_METADATA = """\
Metadata-Version: 2.1
Name: dm-haiku
Version: 0.0.16
Requires-Dist: absl-py>=0.7.1
Requires-Dist: jmp>=0.0.2
Requires-Dist: numpy>=1.18.0
Requires-Dist: tabulate>=0.8.9
Provides-Extra: jax
Requires-Dist: jax>=0.11.0; extra == "jax"
Requires-Dist: jaxlib>=0.11.0; extra == "jax"
"""
# dm-haiku 0.0.16 haiku/_src/base.py (its imports).
HAIKU_MODULE = """\
import collections
import contextlib
import functools
from haiku._src import config
import jax
from jax import config as jax_config
import jax.numpy as jnp


def current_module():
    return jnp.zeros(())
"""


def _haiku(modules: int) -> dict[str, str]:
    files = {"METADATA": HAIKU_METADATA, "haiku/__init__.py": ""}
    files |= {f"haiku/_src/module_{n}.py": HAIKU_MODULE for n in range(modules)}
    return files


@pytest.mark.parametrize("target", ["xpu", "mps"])
def test_a_library_importing_its_extra_framework_everywhere_is_built_on(tmp_path: Path, target: str) -> None:
    report = audit_files(tmp_path, _haiku(12), target)
    assert report.verdict.risk == "moderate"
    imports = [f for f in report.findings if f.rule == "framework-import"]
    assert imports
    assert all(f.risk == "moderate" for f in imports)
    assert not any("optional extra" in f.meaning for f in imports)


@pytest.mark.parametrize("target", ["xpu", "mps"])
def test_twin_a_few_feature_modules_keep_the_extra_optional(tmp_path: Path, target: str) -> None:
    report = audit_files(tmp_path, _haiku(2), target)
    assert report.verdict.risk == "lower"
    imports = [f for f in report.findings if f.rule == "framework-import"]
    assert imports
    assert all("optional extra" in f.meaning for f in imports)


def test_rocm_reads_the_built_on_framework_as_its_supported_plugin(tmp_path: Path) -> None:
    assert audit_files(tmp_path, _haiku(12), "rocm:gfx942").verdict.risk == "lower"


# TensorFlow Probability 0.25: python/distributions/gamma.py (imports) and substrates/jax/__init__.py.
TFP_DISTRIBUTION = """\
import numpy as np
import tensorflow.compat.v2 as tf

from tensorflow_probability.python.internal import dtype_util


def _log_prob(x):
    return tf.math.log(x)
"""
TFP_JAX = "import jax\n\nrewrite = jax.numpy\n"


def _tfp(tf_modules: int, jax_modules: int) -> dict[str, str]:
    files = {
        "METADATA": (
            "Metadata-Version: 2.1\nName: tensorflow-probability\nVersion: 0.25.0\n"
            'Requires-Dist: jax; extra == "jax"\nRequires-Dist: tensorflow>=2.16; extra == "tf"\n'
        ),
        "tensorflow_probability/__init__.py": "",
    }
    files |= {f"tensorflow_probability/python/dist_{n}.py": TFP_DISTRIBUTION for n in range(tf_modules)}
    files |= {f"tensorflow_probability/substrates/jax_{n}.py": TFP_JAX for n in range(jax_modules)}
    return files


@pytest.mark.parametrize("target", ["xpu", "mps"])
def test_tensorflow_computes_where_it_is_imported_more_than_jax(tmp_path: Path, target: str) -> None:
    report = audit_files(tmp_path, _tfp(12, 1), target)
    assert report.verdict.risk == "moderate"
    tf_imports = [f for f in report.findings if f.rule == "framework-import" and "TensorFlow" in f.meaning]
    assert tf_imports
    assert not any("feeds it data" in f.meaning for f in tf_imports)


def test_twin_jax_everywhere_keeps_tensorflow_as_its_input_pipeline(tmp_path: Path) -> None:
    report = audit_files(tmp_path, _tfp(2, 12), "mps")
    tf_imports = [f for f in report.findings if f.rule == "framework-import" and "TensorFlow" in f.meaning]
    assert tf_imports
    assert all("feeds it data" in f.meaning and f.risk == "lower" for f in tf_imports)


# spleeter 2.4.2 pyproject.toml (test_blind9_fixes' trimmed copy, with its optional, development and extras
# entries put back).
SPLEETER_PYPROJECT = (
    SPLEETER_POETRY.replace(
        'tensorflow = "2.12.1"\n',
        'httpx = {extras = ["http2"], version = "^0.19.0"}\n'
        'musdb = {version = "^0.4.0", optional = true}\n'
        'tensorflow = "2.12.1"\n',
    )
    + '\n[tool.poetry.dev-dependencies]\npytest = "^6.2.1"\n'
    + '\n[tool.poetry.extras]\nevaluation = ["musdb", "museval"]\n'
)
SPLEETER_MODULE = "import tensorflow as tf\n\n\ndef separate(x):\n    return tf.signal.stft(x, 4096, 1024)\n"


def _poetry_signals(text: str) -> dict[str, tuple[str, tuple[str, ...]]]:
    return {s.subject: (s.kind, s.detail) for s in scan_build("pyproject.toml", text, "build")}


def test_poetry_dependencies_are_requirements_with_their_pins() -> None:
    found = _poetry_signals(SPLEETER_PYPROJECT)
    assert found["tensorflow"] == ("requirement", ("package=tensorflow", "pinned=2.12.1"))
    assert found["ffmpeg-python"] == ("declared", ())
    assert found["musdb"][1] == ("optional=1",)
    assert found["pytest"][1] == ("optional=1",)  # a development dependency: not the user's install
    assert "python" not in found


def test_poetry_ranges_optional_flags_and_groups() -> None:
    text = (
        "[tool.poetry.dependencies]\n"
        'tensorflow = "^2.15"\n'
        'flash-attn = { version = ">=2.5", optional = true }\n'
        "[tool.poetry.group.gpu.dependencies]\n"
        'bitsandbytes = "0.43.1"\n'
        "[tool.other]\n"
        'cupy = "13.0.0"\n'
    )
    found = _poetry_signals(text)
    assert found["tensorflow"] == ("requirement", ("package=tensorflow",))
    assert found["flash-attn"][0] == "requirement"
    assert "optional=1" in found["flash-attn"][1]
    assert "optional=1" in found["bitsandbytes"][1]
    assert "cupy" not in found  # another tool's table is no dependency list


@pytest.mark.parametrize(
    ("pin", "risk"), [('"2.12.1"', "moderate"), ('"^2.12"', "lower"), ('">=2.12,<2.13"', "lower")]
)
def test_tensorflow_on_rocm_is_the_documented_swap_unless_pinned_exactly(
    tmp_path: Path, pin: str, risk: str
) -> None:
    files = {
        "pyproject.toml": SPLEETER_PYPROJECT.replace('tensorflow = "2.12.1"', f"tensorflow = {pin}"),
        "spleeter/separator.py": SPLEETER_MODULE,
    }
    report = audit_files(tmp_path, files, "rocm:gfx942")
    requirement = [f for f in report.findings if f.rule == "framework-requirement"]
    assert [f.risk for f in requirement] == [risk]
    assert report.verdict.risk == risk


def test_hostile_poetry_tables_are_read_as_text(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    token = "hf_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z"
    hostile = (
        "[tool.poetry.dependencies]\n"
        'tensorflow = "2.12.1\x1b[31m"  # [bold red]x[/bold red]\n'
        "rich-x = '[red]x[/red]'\n"
        + "a" * 200
        + ' = "1.0"\n'
        + "cupy-cuda12x = "
        + '"1" ' * 50_000
        + "\n"
        + f'bitsandbytes = "0.43.1"  # HF_TOKEN={token}\n'
    )
    (tmp_path / "pyproject.toml").write_text(hostile, encoding="utf-8")
    report = audit(scan_tree(str(tmp_path)), None, parse_target("rocm:gfx942"))
    assert {f.code.split(" =")[0] for f in report.findings} >= {"tensorflow", "cupy-cuda12x", "bitsandbytes"}
    assert all(len(f.code) < 400 for f in report.findings)
    print_out(render_audit(report))
    shown = capsys.readouterr().out
    for text in (shown, audit_markdown(report), audit_json(report)):
        assert "\x1b" not in text
        assert token not in text
    assert "[bold red]x[/bold red]" in shown  # markup in the file is printed as text
