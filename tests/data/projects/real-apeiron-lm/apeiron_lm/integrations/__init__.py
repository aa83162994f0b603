# Copyright 2026 Ömür Bera Işık  —  Apache-2.0
"""
Optional integrations for Apeiron LM.

HuggingFace
-----------
>>> from apeiron_lm.integrations import ApeironForCausalLM, ApeironByteTokenizer
>>> model = ApeironForCausalLM.from_pretrained("path/to/checkpoint")
>>> tok   = ApeironByteTokenizer()

Requires: pip install transformers
"""

from __future__ import annotations


def _check_transformers() -> None:
    try:
        import transformers  # noqa: F401
    except ImportError as e:
        raise ImportError(
            "HuggingFace integrations require `transformers` to be installed. "
            "Run: pip install transformers"
        ) from e


class _LazyHFImport:
    """Proxy that defers the transformers import until first attribute access."""
    def __getattr__(self, name: str):
        _check_transformers()
        from apeiron_lm.integrations import huggingface as _hf
        return getattr(_hf, name)


_hf_lazy = _LazyHFImport()

_HF_NAMES = (
    "ApeironForCausalLM",
    "ApeironPreTrainedModel",
    "ApeironHFConfig",
    "ApeironByteTokenizer",
)

def __getattr__(name: str):
    if name in _HF_NAMES:
        return getattr(_hf_lazy, name)
    raise AttributeError(f"module 'apeiron_lm.integrations' has no attribute {name!r}")
