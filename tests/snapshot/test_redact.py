"""Secrets never reach a snapshot file or the screen; anonymization keeps diffs lined up.

Every secret below is fake but has the exact shape of the real thing (prefixes, lengths, alphabets),
so the patterns are tested against what users actually paste.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from envsnap.snapshot import store
from envsnap.snapshot.fingerprint import fingerprint
from envsnap.snapshot.model import DeviceSample, Environment, GpuProcess, Package, PackageSource, Sample
from envsnap.snapshot.redact import REDACTED, anonymize, is_secret_name, redact_snapshot, redact_text
from tests.factories import make_snapshot

# (variable name, value, the part that must disappear)
PLANTED: list[tuple[str, str, str]] = [
    ("HF_TOKEN", "hf_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789", "hf_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789"),
    ("HF_HUB_TOKEN", "hf_ZyXwVuTsRqPoNmLkJiHgFeDcBa9876543210", "hf_ZyXwVuTsRqPoNmLkJiHgFeDcBa9876543210"),
    (
        "CUDA_GITHUB_TOKEN",
        "ghp_1234567890abcdefghijABCDEFGHIJ123456",
        "ghp_1234567890abcdefghijABCDEFGHIJ123456",
    ),
    (
        "NVIDIA_GH_PAT",
        "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRS",
        "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz",
    ),
    (
        "TORCH_OPENAI_KEY",
        "sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
        "sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
    ),
    ("TF_AWS_ACCESS_KEY_ID", "AKIAIOSFODNN7EXAMPLE", "AKIAIOSFODNN7EXAMPLE"),
    (
        "TF_AWS_SECRET_ACCESS_KEY",
        "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    ),
    (
        "NCCL_SLACK_BOT_TOKEN",
        "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
        "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
    ),
    (
        "HF_WANDB_API_KEY",
        "0123456789abcdef0123456789abcdef01234567",
        "0123456789abcdef0123456789abcdef01234567",
    ),
    ("NCCL_IB_PASSWORD", "correct-horse-battery-staple", "correct-horse-battery-staple"),
    ("CONDA_TOKEN", "Zm9vYmFyYmF6cXV4", "Zm9vYmFyYmF6cXV4"),
    ("TRITON_CACHE_AUTH", "Basic dXNlcjpwYXNzd29yZA==", "dXNlcjpwYXNzd29yZA=="),
    (
        "PIP_INDEX_URL",
        "https://ml-bot:s3cr3tP4ssw0rd@pypi.internal.example.com/simple",
        "s3cr3tP4ssw0rd",
    ),
    (
        "PIP_EXTRA_INDEX_URL",
        "https://__token__:pypi-AgEIcHlwaS5vcmcCJGE0ZjM5YjQ4LWQwZjktNGE1My1hM2M3LTY5ZmQ5ZWE@upload.pypi.org/simple",
        "pypi-AgEIcHlwaS5vcmcCJGE0ZjM5YjQ4LWQwZjktNGE1My1hM2M3LTY5ZmQ5ZWE",
    ),
    (
        "UV_INDEX_URL",
        "https://oauth2:glpat-ABCdef1234567890xyzW@gitlab.example.com/api/v4/projects/7/packages/pypi/simple",
        "glpat-ABCdef1234567890xyzW",
    ),
    (
        "PYTORCH_JWT_CONF",
        "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
        "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    ),
    ("XLA_FLAGS", "--xla_dump_to=/tmp/xla --api-key=abcd1234efgh5678ijkl", "abcd1234efgh5678ijkl"),
    ("TF_GCS_CONFIG", "AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q", "AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q"),
    (
        "JAX_PROFILER_UPLOAD",
        "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-_abcdef",
        "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
    ),
    ("NVIDIA_NPM", "npm_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789", "npm_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"),
    ("HF_HEADERS", "Authorization: Bearer abcdef1234567890ghijkl", "abcdef1234567890ghijkl"),
    ("TORCH_BILLING", "sk_live_51HabcdefGHIJKLmnopQRSTuv", "sk_live_51HabcdefGHIJKLmnopQRSTuv"),
    (
        "NCCL_TLS_KEY",
        "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7v8Qx0\n-----END RSA PRIVATE KEY-----",
        "MIIEowIBAAKCAQEA7v8Qx0",
    ),
    (
        "LD_LIBRARY_PATH",
        "/usr/local/cuda/lib64:/opt/tok/ghs_abcdefghijklmnopqrstuvwxyzABCDEFGHIJ/lib",
        "ghs_abcdefghijklmnopqrstuvwxyzABCDEFGHIJ",
    ),
    ("ONEAPI_DSN", "postgres://svc:hunter2hunter2@db.example.com:5432/metrics", "hunter2hunter2"),
    ("PIP_EXTRA_INDEX_URL_2", "https://1aB2cD3eF4gH5iJ6kL7m@pypi.fury.io/acme/", "1aB2cD3eF4gH5iJ6kL7m"),
]

# Values that look technical but are not secrets: they must survive untouched.
KEPT: dict[str, str] = {
    "CUDA_VISIBLE_DEVICES": "0,1",
    "HF_HUB_OFFLINE": "1",
    "CUDA_HOME": "/usr/local/cuda-13.0",
    "PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True",
    "NCCL_DEBUG": "INFO",
    "TORCH_COMMIT": "3f1d2c4b5a6978877665544332211ffeeddccbba",  # a git sha is not an AWS key
    "HF_HOME": "/data/hf-cache",
}


def test_at_least_twenty_planted_secrets() -> None:
    assert len(PLANTED) >= 20


@pytest.mark.parametrize(
    ("name", "secret"),
    [
        ("HF_TOKEN", True),
        ("WANDB_API_KEY", True),
        ("OPENAI_APIKEY", True),
        ("AWS_SECRET_ACCESS_KEY", True),
        ("DB_PASSWD", True),
        ("SESSION_COOKIE", True),
        ("GOOGLE_APPLICATION_CREDENTIALS", True),
        ("TOKENIZERS_PARALLELISM", False),
        ("CUDA_DEVICE_ORDER", False),
        ("NCCL_SOCKET_IFNAME", False),
        ("PYTORCH_CUDA_ALLOC_CONF", False),
        ("KEYBOARD_LAYOUT", False),
    ],
)
def test_secret_names(name: str, secret: bool) -> None:
    assert is_secret_name(name) is secret


@pytest.mark.parametrize(("name", "value", "secret"), PLANTED, ids=[p[0] for p in PLANTED])
def test_every_planted_secret_is_removed_from_the_snapshot(name: str, value: str, secret: str) -> None:
    snapshot = make_snapshot(environment=Environment(status="ok", variables={name: value, **KEPT}))
    text = store.dumps(redact_snapshot(snapshot))
    assert secret not in text
    assert REDACTED in text
    for kept_name, kept_value in KEPT.items():
        assert f"{kept_name}: {kept_value}" in text or f"{kept_name}: '{kept_value}'" in text


def test_secrets_outside_environment_are_caught_by_shape() -> None:
    token = "ghp_1234567890abcdefghijABCDEFGHIJ123456"
    snapshot = make_snapshot(
        packages=(
            Package(
                name="private-lib",
                version="1.0",
                source=PackageSource(
                    kind="vcs", url=f"https://{token}@github.com/acme/private-lib.git", vcs="git"
                ),
            ),
        ),
        telemetry=Sample(
            captured_at="2026-11-29T12:00:00Z",
            devices=(
                DeviceSample(
                    vendor="nvidia",
                    index=0,
                    processes=(
                        GpuProcess(
                            pid=4242, name="python train.py --hf-token hf_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123"
                        ),
                    ),
                ),
            ),
        ),
    )
    text = store.dumps(redact_snapshot(snapshot))
    assert token not in text
    assert "hf_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123" not in text
    assert "github.com/acme/private-lib.git" in text  # only the secret part goes


def test_redaction_is_idempotent_and_leaves_model_keys_alone() -> None:
    once = redact_snapshot(make_snapshot())
    assert redact_snapshot(once) == once
    assert once.accelerators == make_snapshot().accelerators  # pci_bus_id, uuid... are not secrets


@pytest.mark.parametrize(
    "text",
    [
        "3f1d2c4b5a6978877665544332211ffeeddccbba",  # git commit
        "sha256=9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
        "git+ssh://git@github.com/acme/tools.git@v1.2",
        "/usr/local/cuda-13.0/targets/x86_64-linux/lib",
        "torch==2.13.0+cpu",
        "nvidia-cudnn-cu13==9.24.0.43; platform_system == 'Linux'",
    ],
)
def test_no_false_positives_on_technical_strings(text: str) -> None:
    assert redact_text(text) == text


# ---------------------------------------------------------------------------- end to end


def _env_with_secrets() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PIP_", "UV_", "HF_"))}
    env.update({name: value for name, value, _ in PLANTED if name != "LD_LIBRARY_PATH"})
    env.update(KEPT)
    return env


@pytest.mark.slow
def test_save_and_show_never_print_a_planted_secret(tmp_path: Path) -> None:
    out = tmp_path / "snap.yaml"
    env = _env_with_secrets()
    command = [sys.executable, "-m", "envsnap"]
    saved = subprocess.run(
        [*command, "save", "-o", str(out), "--no-frameworks"],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert saved.returncode == 0, saved.stderr
    shown = subprocess.run([*command, "show", str(out)], env=env, capture_output=True, text=True, check=False)
    as_json = subprocess.run(
        [*command, "show", str(out), "--json"], env=env, capture_output=True, text=True, check=False
    )
    file_text = out.read_text()
    variables = json.loads(as_json.stdout)["environment"]["variables"]
    for name, _value, secret in PLANTED:
        if name == "LD_LIBRARY_PATH":
            continue
        assert name in variables, f"{name} should be recorded (redacted), not dropped"
        for where, text in (("file", file_text), ("show", shown.stdout), ("show --json", as_json.stdout)):
            assert secret not in text, f"{name}'s secret leaked into {where}"
            assert secret not in saved.stdout + saved.stderr
    for name, value in KEPT.items():
        assert variables[name] == value


# ---------------------------------------------------------------------------- anonymize


def test_anonymize_masks_identity_and_keeps_the_fingerprint() -> None:
    snapshot = make_snapshot()
    masked = anonymize(snapshot)
    text = store.dumps(masked)
    for identity in ("gpu-node-01", "alice", "0000000000000", "GPU-00000000-0000-0000-0000-000000000000"):
        assert identity not in text
    assert masked.meta.anonymized is True
    assert masked.host is not None
    assert masked.host.hostname == masked.meta.host_alias
    assert fingerprint(masked) == fingerprint(snapshot)


def test_anonymize_is_stable_so_diffs_line_up() -> None:
    first, second = anonymize(make_snapshot()), anonymize(make_snapshot())
    assert first == second
    assert first.python is not None
    assert first.python.executable is not None
    assert first.python.executable.startswith("/home/user-")


def test_fingerprint_ignores_host_identity_but_not_the_stack() -> None:
    base = make_snapshot()
    assert base.host is not None
    assert base.python is not None
    other_host = msgspec.structs.replace(
        base,
        host=msgspec.structs.replace(base.host, hostname="gpu-node-77", memory_total_bytes=25_769_000_000),
        python=msgspec.structs.replace(base.python, executable="/home/bob/project/.venv/bin/python"),
    )
    assert fingerprint(other_host) == fingerprint(base)
    assert base.packages is not None
    other_stack = msgspec.structs.replace(
        base, packages=(msgspec.structs.replace(base.packages[0], version="2.14.1+cu130"), *base.packages[1:])
    )
    assert fingerprint(other_stack) != fingerprint(base)


@settings(max_examples=400, deadline=None)
@given(
    prefix=st.text(max_size=30),
    secret=st.sampled_from([p[1] for p in PLANTED] + list(KEPT.values())),
    suffix=st.text(max_size=30),
)
def test_the_prefilter_never_changes_the_result(prefix: str, secret: str, suffix: str) -> None:
    from envsnap.snapshot.redact import _redact_shapes

    text = prefix + secret + suffix
    assert redact_text(text) == _redact_shapes(text)
