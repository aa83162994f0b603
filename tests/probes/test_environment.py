"""Environment probe: which variables are kept, which are not, and how redaction applies afterwards."""

from __future__ import annotations

import msgspec

from envsnap.probes import env_vars as environment
from envsnap.probes.base import ProbeContext
from envsnap.snapshot.model import SCHEMA_VERSION, Environment, Meta, Snapshot
from envsnap.snapshot.redact import REDACTED, redact_snapshot

ENVIRON = {
    # kept: prefixes
    "CUDA_VISIBLE_DEVICES": "0,1",
    "NCCL_DEBUG": "INFO",
    "HIP_VISIBLE_DEVICES": "0",
    "HSA_OVERRIDE_GFX_VERSION": "10.3.0",
    "PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True",
    "XLA_FLAGS": "--xla_gpu_cuda_data_dir=/usr/local/cuda-13.0",
    "OMP_NUM_THREADS": "8",
    "ONEAPI_DEVICE_SELECTOR": "level_zero:0",
    "HF_TOKEN": "hf_" + "a" * 34,
    "PIP_INDEX_URL": "https://user:s3cr3tpass@pypi.example.org/simple",
    # kept: exact names
    "LD_LIBRARY_PATH": "/usr/local/cuda-13.0/lib64",
    "PATH": "/usr/local/cuda-13.0/bin:/usr/bin:/bin",
    "VIRTUAL_ENV": "/work/main/.venv",
    # left out: unrelated or volatile
    "HOME": "/root",
    "PWD": "/work/main",
    "OLDPWD": "/work",
    "SHLVL": "2",
    "TERM": "xterm-256color",
    "SLURM_JOB_ID": "4242",
    "PIP_REQ_TRACKER": "/tmp/pip-req-tracker-x1y2",
    "CONDA_SHLVL": "1",
    "LESS": "-R",
    "CUDAX": "not a CUDA_ variable",
    # left out: Terraform's, which share TensorFlow's TF_ prefix
    "TF_CLI_CONFIG_FILE": "/root/.terraformrc",
    "TF_VAR_region": "us-west-1",
    "TF_LOG": "trace",
    # kept: TensorFlow's own
    "TF_CPP_MIN_LOG_LEVEL": "2",
}

KEPT = {
    "CUDA_VISIBLE_DEVICES", "NCCL_DEBUG", "HIP_VISIBLE_DEVICES", "HSA_OVERRIDE_GFX_VERSION",
    "PYTORCH_CUDA_ALLOC_CONF", "XLA_FLAGS", "OMP_NUM_THREADS", "ONEAPI_DEVICE_SELECTOR", "HF_TOKEN",
    "PIP_INDEX_URL", "LD_LIBRARY_PATH", "PATH", "VIRTUAL_ENV", "TF_CPP_MIN_LOG_LEVEL",
}  # fmt: skip


def test_keeps_ml_relevant_variables_and_drops_volatile_ones() -> None:
    section = environment.probe(ProbeContext(environ=ENVIRON))
    assert section.status == "ok"
    assert section.variables is not None
    assert set(section.variables) == KEPT
    assert section.variables["CUDA_VISIBLE_DEVICES"] == "0,1"


def test_values_are_not_redacted_by_the_probe_but_are_in_the_snapshot() -> None:
    section = environment.probe(ProbeContext(environ=ENVIRON))
    assert section.variables is not None
    assert section.variables["HF_TOKEN"] == ENVIRON["HF_TOKEN"]  # redaction is redact.py's job

    snapshot = Snapshot(
        schema=SCHEMA_VERSION,
        meta=Meta(envsnap_version="test", captured_at="2026-01-01T00:00:00Z"),
        environment=section,
    )
    redacted = redact_snapshot(snapshot).environment
    assert redacted is not None
    assert redacted.variables is not None
    assert redacted.variables["HF_TOKEN"] == REDACTED
    assert redacted.variables["PIP_INDEX_URL"] == f"https://user:{REDACTED}@pypi.example.org/simple"
    assert redacted.variables["CUDA_VISIBLE_DEVICES"] == "0,1"


def test_variables_are_sorted_and_probing_twice_is_identical() -> None:
    first = environment.probe(ProbeContext(environ=dict(reversed(list(ENVIRON.items())))))
    second = environment.probe(ProbeContext(environ=ENVIRON))
    assert first == second
    assert first.variables is not None
    assert list(first.variables) == sorted(first.variables)
    assert msgspec.json.encode(first) == msgspec.json.encode(second)


def test_empty_environment_is_an_ok_empty_section() -> None:
    assert environment.probe(ProbeContext(environ={})) == Environment(status="ok", variables={})


def test_is_relevant_covers_the_documented_lists() -> None:
    for prefix in environment.PREFIXES:
        assert environment.is_relevant(prefix + "ANYTHING")
    for name in environment.NAMES:
        assert environment.is_relevant(name)
    for name in environment.VOLATILE | environment.FOREIGN_NAMES:
        assert not environment.is_relevant(name)
    for prefix in environment.FOREIGN_PREFIXES:
        assert not environment.is_relevant(prefix + "ANYTHING")
