# Copyright 2026 Ömür Bera Işık  —  Apache-2.0
"""
Configuration for Apeiron LM  (v0.0.3.2).
"""

from __future__ import annotations

import copy
import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Dict, Optional

CONFIG_FILE = "apeiron_config.json"


@dataclass
class ApeironConfig:
    """
    Full configuration class for Apeiron LM.

    Architecture parameters
    -----------------------
    latent_dim : int
    encoder_layers : int
    encoder_heads : int
    encoder_ff_dim : int
    encoder_dropout : float
    novelty_hidden : int
    num_prototypes : int
    num_candidates : int
    explorer_score_hidden : int
    tau_init : float
    tau_min : float
    tau_anneal_factor : float
    n_max : int
    len_hidden : int
    conv_kernel : int
        Kernel size for the causal depth-wise 1-D convolution in
        UnifiedLatentReasoner.  Set to 0 to disable (v0.0.1 behaviour).
    fourier_mode : str
        "none"       — v0.0.2 behaviour (CausalDWConv1D only)
        "replace"    — replace DWConv with Fourier spectral conv
        "parallel"   — both Fourier + DWConv in parallel (recommended)
        "adaptive"   — input-conditioned frequency filter (new v0.0.3.2)
        "multiscale" — 3-resolution Fourier block (new v0.0.3.2)
    fourier_n_modes : int
        Number of low-frequency modes for the Fourier spectral conv.
        Higher = more global context; lower = more regularisation.
    fourier_mix_channels : bool
        If True, use full C×C complex channel-mixing matrix per mode.
        More expressive but O(C²) memory. Default False.
    attention_backend : str
        "auto"  — best available (Flash Attention 2 > SDPA > naive)
        "flash" — Flash Attention 2 (requires: pip install flash-attn)
        "sdpa"  — PyTorch F.scaled_dot_product_attention
        "naive" — pure PyTorch

    Training loss weights
    ---------------------
    alpha : float  — L_len weight
    beta  : float  — L_div weight
    gamma : float  — L_novelty weight
    explorer_warmup_steps : int

    Misc
    ----
    model_type : str
    """

    # ── Encoder ───────────────────────────────────────────────────────────────
    latent_dim:      int   = 512
    encoder_layers:  int   = 4
    encoder_heads:   int   = 8
    encoder_ff_dim:  int   = 2048
    encoder_dropout: float = 0.1

    # ── Novelty Estimator ─────────────────────────────────────────────────────
    novelty_hidden: int = 256

    # ── Latent Explorer ───────────────────────────────────────────────────────
    num_prototypes:        int   = 64
    num_candidates:        int   = 8
    explorer_score_hidden: int   = 128
    tau_init:              float = 1.0
    tau_min:               float = 0.1
    tau_anneal_factor:     float = 0.9995

    # ── Unified Latent Reasoner ───────────────────────────────────────────────
    n_max:       int = 512
    len_hidden:  int = 128
    conv_kernel: int = 7    # causal DW-conv kernel size (0 = disabled)
    fourier_mode:         str  = "none"   # "none" | "replace" | "parallel" | "adaptive" | "multiscale"
    fourier_n_modes:      int  = 64       # frequency modes for Fourier branch
    fourier_mix_channels: bool = False    # full C×C complex mixing per mode
    attention_backend:    str  = "auto"   # "auto" | "flash" | "sdpa" | "naive" 

    # ── Training loss weights ─────────────────────────────────────────────────
    alpha:   float = 0.1
    beta:    float = 0.01
    gamma:   float = 0.01

    explorer_warmup_steps: int = 1000

    # ── Metadata ──────────────────────────────────────────────────────────────
    model_type: str = "apeiron_lm"

    # ── Preset factories ──────────────────────────────────────────────────────

    @classmethod
    def tiny(cls) -> "ApeironConfig":
        """Tiny config (~3M parameters). Use for: unit tests, CI, fast iteration."""
        return cls(
            latent_dim      = 128,
            encoder_layers  = 2,
            encoder_heads   = 4,
            encoder_ff_dim  = 256,
            encoder_dropout = 0.0,
            novelty_hidden  = 64,
            num_prototypes  = 16,
            num_candidates  = 4,
            n_max           = 64,
            len_hidden      = 64,
            conv_kernel     = 3,
            fourier_mode    = "none",
            fourier_n_modes = 16,
            explorer_warmup_steps = 50,
        )

    @classmethod
    def small(cls) -> "ApeironConfig":
        """Small config (~50M parameters). Use for: rapid research, fine-tuning."""
        return cls(
            latent_dim      = 256,
            encoder_layers  = 4,
            encoder_heads   = 4,
            encoder_ff_dim  = 1024,
            encoder_dropout = 0.1,
            novelty_hidden  = 128,
            num_prototypes  = 32,
            num_candidates  = 4,
            n_max           = 256,
            len_hidden      = 64,
            conv_kernel     = 5,
            fourier_mode    = "none",
            fourier_n_modes = 32,
            explorer_warmup_steps = 500,
        )

    @classmethod
    def base(cls) -> "ApeironConfig":
        """Base config (~200M parameters). Use for: standard experiments, publication baselines."""
        return cls(
            latent_dim      = 512,
            encoder_layers  = 6,
            encoder_heads   = 8,
            encoder_ff_dim  = 2048,
            encoder_dropout = 0.1,
            novelty_hidden  = 256,
            num_prototypes  = 64,
            num_candidates  = 8,
            n_max           = 512,
            len_hidden      = 128,
            conv_kernel          = 7,
            fourier_mode         = "parallel",
            fourier_n_modes      = 64,
            fourier_mix_channels = False,
            attention_backend    = "auto",
            explorer_warmup_steps = 1000,
        )

    @classmethod
    def large(cls) -> "ApeironConfig":
        """Large config (~800M parameters). Use for: large-scale pre-training."""
        return cls(
            latent_dim      = 1024,
            encoder_layers  = 12,
            encoder_heads   = 16,
            encoder_ff_dim  = 4096,
            encoder_dropout = 0.1,
            novelty_hidden  = 512,
            num_prototypes  = 128,
            num_candidates  = 16,
            n_max           = 1024,
            len_hidden      = 256,
            conv_kernel          = 9,
            fourier_mode         = "multiscale",
            fourier_n_modes      = 128,
            fourier_mix_channels = False,
            attention_backend    = "auto",
            explorer_warmup_steps = 2000,
        )

    # ── Serialisation ─────────────────────────────────────────────────────────

    def to_dict(self) -> Dict[str, Any]:
        return asdict(self)

    def to_json(self, indent: int = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent)

    def save(self, directory: str | Path) -> Path:
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        out_path = directory / CONFIG_FILE
        out_path.write_text(self.to_json())
        return out_path

    @classmethod
    def from_dict(cls, d: Dict[str, Any]) -> "ApeironConfig":
        known = {f.name for f in cls.__dataclass_fields__.values()}  # type: ignore
        filtered = {k: v for k, v in d.items() if k in known}
        return cls(**filtered)

    @classmethod
    def from_json(cls, json_str: str) -> "ApeironConfig":
        return cls.from_dict(json.loads(json_str))

    @classmethod
    def load(cls, directory: str | Path) -> "ApeironConfig":
        directory = Path(directory)
        config_path = directory / CONFIG_FILE
        if not config_path.exists():
            raise FileNotFoundError(
                f"No config file found at {config_path}. "
                "Make sure you pass the directory, not the file path."
            )
        return cls.from_json(config_path.read_text())

    # ── Helpers ───────────────────────────────────────────────────────────────

    def __repr__(self) -> str:
        lines = ["ApeironConfig("]
        for k, v in self.to_dict().items():
            lines.append(f"  {k}={v!r},")
        lines.append(")")
        return "\n".join(lines)

    def copy(self, **overrides) -> "ApeironConfig":
        """Return a shallow copy with optional field overrides."""
        d = self.to_dict()
        d.update(overrides)
        return self.from_dict(d)

    # ── Validation ────────────────────────────────────────────────────────────

    def __post_init__(self) -> None:
        self._validate()

    def _validate(self) -> None:
        if self.latent_dim % self.encoder_heads != 0:
            raise ValueError(
                f"latent_dim ({self.latent_dim}) must be divisible by "
                f"encoder_heads ({self.encoder_heads})."
            )
        if self.encoder_layers < 1:
            raise ValueError("encoder_layers must be >= 1.")
        if not (0.0 < self.tau_anneal_factor <= 1.0):
            raise ValueError("tau_anneal_factor must be in (0, 1].")
        if self.tau_min <= 0.0:
            raise ValueError("tau_min must be > 0.")
        if self.tau_init < self.tau_min:
            raise ValueError("tau_init must be >= tau_min.")
        if self.num_candidates < 1:
            raise ValueError("num_candidates must be >= 1.")
        if self.num_prototypes < 1:
            raise ValueError("num_prototypes must be >= 1.")
        if self.n_max < 1:
            raise ValueError("n_max must be >= 1.")
        if self.conv_kernel < 0:
            raise ValueError("conv_kernel must be >= 0 (0 = disabled).")
        _valid_fourier = {"none", "replace", "parallel", "adaptive", "multiscale"}
        if self.fourier_mode not in _valid_fourier:
            raise ValueError(
                f"fourier_mode must be one of {_valid_fourier}, "
                f"got {self.fourier_mode!r}."
            )
        _valid_backends = {"auto", "flash", "sdpa", "naive"}
        if self.attention_backend not in _valid_backends:
            raise ValueError(
                f"attention_backend must be one of {_valid_backends}, "
                f"got {self.attention_backend!r}."
            )
        if self.fourier_n_modes < 1:
            raise ValueError("fourier_n_modes must be >= 1.")
        if self.latent_dim % 2 != 0:
            raise ValueError("latent_dim must be even for sinusoidal PE.")

    # ── Parameter count estimate ──────────────────────────────────────────────

    def estimated_parameters(self) -> int:
        """Rough closed-form estimate. Use model.param_count() for exact count."""
        C  = self.latent_dim
        L  = self.encoder_layers
        H  = self.encoder_ff_dim
        K  = self.num_candidates
        M  = self.num_prototypes
        dh = self.novelty_hidden
        ck = self.conv_kernel

        embed       = 256 * C
        transformer = L * (4 * C * C + 2 * C * H)
        novelty     = C * dh + dh + dh * 1 + 1
        explorer    = M * C + C * (K * C) + C * self.explorer_score_hidden + self.explorer_score_hidden
        reasoner    = C * self.len_hidden + self.len_hidden + self.len_hidden + C * 256
        conv        = ck * C + C if ck > 0 else 0   # dw-conv weights + bias
        fourier     = self.fourier_n_modes * C * 2 if self.fourier_mode != "none" else 0

        return embed + transformer + novelty + explorer + reasoner + conv + fourier
