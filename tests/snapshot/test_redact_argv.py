"""``redact_argv``: a command line loses its secrets, by shape and by the option that precedes them.

The secrets are fake but shaped like the real ones (prefixes, lengths, alphabets).
"""

from __future__ import annotations

import pytest

from envsnap.snapshot.redact import REDACTED, redact_argv

HF = "hf_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789"
ANTHROPIC = "sk-ant-api03-" + "aB3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6kM9nP2qS5uV8xA1"


def test_the_qa_command_line_loses_all_four_secrets() -> None:
    argv = [
        "sh",
        "-c",
        "true",
        f"--token={HF}",
        "--password",
        "hunter2",
        "--api-key",
        ANTHROPIC,
        "https://bob:pw@h/x",
    ]

    redacted = redact_argv(argv)

    assert redacted == [
        "sh",
        "-c",
        "true",
        f"--token={REDACTED}",
        "--password",
        REDACTED,
        "--api-key",
        REDACTED,
        f"https://bob:{REDACTED}@h/x",
    ]
    joined = " ".join(redacted)
    for secret in (HF, "hunter2", ANTHROPIC, ":pw@"):
        assert secret not in joined


@pytest.mark.parametrize(
    "option", ["--password", "--pass", "--hf-token", "--api-key", "--auth", "--secret", "-token"]
)
def test_a_separate_value_after_a_secret_named_option_is_hidden(option: str) -> None:
    assert redact_argv(["train.py", option, "plainword", "--epochs", "3"]) == [
        "train.py",
        option,
        REDACTED,
        "--epochs",
        "3",
    ]


@pytest.mark.parametrize("option", ["-p", "--lr", "--epochs", "--tokenizer-name", "--output"])
def test_other_options_keep_their_values(option: str) -> None:
    # -p is not a secret name (it is --port, --parallel ... as often as a password)
    assert redact_argv(["train.py", option, "value1"]) == ["train.py", option, "value1"]


def test_name_equals_value_is_judged_by_the_name() -> None:
    assert redact_argv(["--db-password=opensesame", "--key=abc123", "--lr=0.1"]) == [
        f"--db-password={REDACTED}",
        f"--key={REDACTED}",
        "--lr=0.1",
    ]


def test_env_style_assignments_are_judged_by_the_name() -> None:
    assert redact_argv(["env", "WANDB_API_KEY=abc123", "CUDA_VISIBLE_DEVICES=0", "python"]) == [
        "env",
        f"WANDB_API_KEY={REDACTED}",
        "CUDA_VISIBLE_DEVICES=0",
        "python",
    ]
    # A dotted config override is not an environment variable: only shapes apply to it.
    assert redact_argv(["trainer.session_steps=3"]) == ["trainer.session_steps=3"]


def test_consecutive_secret_options_hide_each_following_item() -> None:
    assert redact_argv(["--token", "--password", "hunter2", "ok"]) == ["--token", REDACTED, REDACTED, "ok"]


def test_secrets_inside_one_item_are_found_by_shape() -> None:
    assert redact_argv(["sh", "-c", "curl --token abcdefgh https://u:pw@host/x"]) == [
        "sh",
        "-c",
        f"curl --token {REDACTED} https://u:{REDACTED}@host/x",
    ]


def test_a_harmless_command_line_is_unchanged() -> None:
    argv = ["torchrun", "--nproc-per-node", "8", "train.py", "--epochs", "3", "--", "-", "lr=0.1"]
    assert redact_argv(argv) == argv
    assert redact_argv(()) == []
