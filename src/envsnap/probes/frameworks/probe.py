"""The framework probe: which PyTorch, JAX, TensorFlow and onnxruntime builds the target interpreter has.

Frameworks are never imported into envsnap. ``_framework_probe.py`` (stdlib only) is copied into a
private temporary folder and run by the target interpreter (``ctx.python``) once per framework, all
at the same time, each under ``ctx.timeout_s``:

- **one child per framework** so a TensorFlow that hangs in its CUDA init, or a jaxlib that
  segfaults, costs that framework only: torch is still reported, and each gets the whole timeout.
  The wall time is the slowest import instead of the sum; the price is one interpreter start
  (~10 ms) per framework and the frameworks' memory at the same time, for a few seconds.
- **a hang or a crash is data**: the child appends "importing torch", "calling
  torch.cuda.is_available()", ... to a progress file before each step, so the section says
  ``timed out after 20 s while calling torch.cuda.is_available()`` or ``crashed with SIGSEGV while
  importing torch``.
- the copy runs from its own folder (so ``sys.path[0]`` holds nothing but the script, and envsnap is
  never importable there) with ``-B``, so probing never writes ``__pycache__`` into the target env.

Frameworks that are not installed are left out (``None``), except torch, which is always reported
(``skipped: not installed``) because so much of envsnap keys on it. Interpreting the answers is
framework_results.py's job.
"""

from __future__ import annotations

import json
import signal
import tempfile
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from importlib import resources
from pathlib import Path
from typing import Any, TypeVar

from envsnap.probes.base import ProbeContext, run_command
from envsnap.probes.frameworks import cache as framework_cache
from envsnap.probes.frameworks import results
from envsnap.snapshot.model import Frameworks, JaxInfo, OnnxruntimeInfo, TensorflowInfo, TorchInfo

JOBS = ("torch", "jax", "tensorflow", "onnxruntime", "companions")
SCRIPT = "_framework_probe.py"
# Set for the children only, where the user has not chosen: TensorFlow's C++ logging is pure noise
# here, and XLA must not grab 75% of every GPU's memory on a host where jobs may be running.
_CHILD_DEFAULTS = {"TF_CPP_MIN_LOG_LEVEL": "3", "XLA_PYTHON_CLIENT_PREALLOCATE": "false"}
Answer = dict[str, Any]
S = TypeVar("S", TorchInfo, JaxInfo, TensorflowInfo, OnnxruntimeInfo)
# PYTHONINSPECT would leave the child at an interactive prompt after the script: a certain timeout.
_CHILD_DROP = ("PYTHONINSPECT",)


def probe(ctx: ProbeContext) -> Frameworks:
    """Ask the target interpreter's frameworks about their builds.

    Command line equivalent: ``python -c "import torch; print(torch.__version__, torch.version.cuda,
    torch.cuda.get_arch_list(), torch.__config__.show())"`` and the like for jax, tensorflow, onnxruntime.
    """
    env = child_environment(ctx.environ)
    # The build of an unchanged environment is read from the cache (framework_cache.py says
    # what the key covers); the answers are interpreted afresh, with this run's environment.
    key = framework_cache.cache_key(ctx, env) if ctx.cache else None
    where = framework_cache.default_path(ctx.environ, ctx) if ctx.cache else None
    cached = framework_cache.load(key, where) if key is not None else None
    if cached is not None:
        return assemble(cached, ctx.environ)
    source = resources.files("envsnap.probes.frameworks").joinpath(SCRIPT).read_text(encoding="utf-8")
    with tempfile.TemporaryDirectory(prefix="envsnap-frameworks-") as folder:
        script = Path(folder, "envsnap_framework_probe.py")
        script.write_text(source, encoding="utf-8")
        with ThreadPoolExecutor(max_workers=len(JOBS), thread_name_prefix="envsnap-framework") as pool:
            answers = dict(zip(JOBS, pool.map(lambda job: run_job(ctx, script, env, job), JOBS), strict=True))
    if ctx.cache:
        key = key or framework_cache.cache_key(ctx, env)
        if key is not None:
            framework_cache.store(key, answers, JOBS, where)
    return assemble(answers, ctx.environ)


def child_environment(environ: Mapping[str, str]) -> dict[str, str]:
    """The target's environment, plus the quieting defaults, minus what would hang the child."""
    env = {key: value for key, value in environ.items() if key not in _CHILD_DROP}
    for key, value in _CHILD_DEFAULTS.items():
        env.setdefault(key, value)
    return env


def run_job(ctx: ProbeContext, script: Path, env: Mapping[str, str], job: str) -> Answer | str:
    """Run one child; its parsed answer, or why there is none (a sentence naming what it was doing)."""
    progress = script.with_name(f"{job}.progress")
    done = run_command([ctx.python, "-B", str(script), job, str(progress)], timeout_s=ctx.timeout_s, env=env)
    stage = last_stage(progress)
    during = f" while {stage}" if stage else ""
    if done.returncode is None:
        if done.error and "timed out" in done.error:
            return f"timed out after {ctx.timeout_s:g} s{during}"
        return f"could not run {ctx.python}: {done.error}"
    if done.returncode < 0:
        return f"crashed with {signal_name(-done.returncode)}{during}"
    if done.returncode != 0:
        return f"exited with status {done.returncode}{during}{last_line(done.stderr)}"
    try:
        answer = json.loads(done.stdout)
    except ValueError:
        return f"printed no readable answer{during}{last_line(done.stderr)}"
    return answer if isinstance(answer, dict) else f"printed an unexpected answer{during}"


def last_stage(progress: Path) -> str | None:
    """The last step the child announced before it stopped."""
    try:
        lines = progress.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    return (lines[-1].strip() or None) if lines else None


def signal_name(number: int) -> str:
    """``SIGSEGV`` for 11; the number when the platform has no name for it."""
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def last_line(stderr: str) -> str:
    """``: <last non-empty stderr line>``, the usual place of a Python traceback's verdict."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    return f": {lines[-1][:500]}" if lines else ""


def assemble(answers: Mapping[str, Answer | str], environ: Mapping[str, str]) -> Frameworks:
    """The Frameworks section from each job's answer or failure."""
    companions = answers.get("companions")
    torch = _section(answers.get("torch"), lambda answer: results.torch_info(answer, environ), TorchInfo)
    return Frameworks(
        torch=torch or TorchInfo(status="skipped", reason="not installed"),
        jax=_section(answers.get("jax"), results.jax_info, JaxInfo),
        tensorflow=_section(answers.get("tensorflow"), results.tensorflow_info, TensorflowInfo),
        onnxruntime=_section(answers.get("onnxruntime"), results.onnxruntime_info, OnnxruntimeInfo),
        companions=results.companions(companions) if isinstance(companions, dict) else None,
    )


def _section(answer: Answer | str | None, build: Callable[[Answer], S], kind: type[S]) -> S | None:
    """ok → the built section; failed → a failed section; not installed (or not asked) → None."""
    if answer is None:
        return None
    if isinstance(answer, str):
        return kind(status="failed", reason=answer)
    if answer.get("status") == "ok":
        return build(answer)
    if answer.get("status") == "failed":
        return kind(status="failed", reason=str(answer.get("reason") or "failed"))
    return None
