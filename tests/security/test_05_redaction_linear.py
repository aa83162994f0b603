"""5. Redaction is linear: megabyte-long adversarial strings are redacted (benchmarks/bench_redact.py).

No timing assertion here (tests/security asserts results and structure); the strings are large
enough that the old quadratic patterns would not finish within the suite's run at all.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from envsnap.snapshot.redact import REDACTED, redact_text

ADVERSARIAL_UNITS = [
    "a.",
    "eyJa-",
    "a://",
    "-u ",
    "mysql ",
    "login ",
    "sk-",
    "token=",
    "basic ",
    "a@",
    "a:",
    "--a-",
]
SECRET = "hf_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789"


def test_a_megabyte_of_each_adversarial_shape_is_redacted_and_keeps_its_shape() -> None:
    for unit in ADVERSARIAL_UNITS:
        text = unit * (1_000_000 // len(unit)) + " " + SECRET
        redacted = redact_text(text)
        assert SECRET not in redacted
        assert redacted.endswith(REDACTED)


@settings(max_examples=30, deadline=None)
@given(
    unit=st.sampled_from(ADVERSARIAL_UNITS),
    repeat=st.integers(min_value=1_000, max_value=30_000),
    noise=st.text(alphabet="a.:/@- _=", max_size=20),
)
def test_long_adversarial_strings_lose_only_secrets(unit: str, repeat: int, noise: str) -> None:
    text = f"{unit * repeat}{noise} https://user:hunter2hunter2@db.example/x {SECRET}"
    redacted = redact_text(text)
    assert "hunter2hunter2" not in redacted
    assert SECRET not in redacted
    assert redact_text(redacted) == redacted  # idempotent
