"""Configuration definitions for FiveAttn and MHA 100M-parameter models."""

from dataclasses import dataclass
from typing import Literal


@dataclass
class ModelConfig:
    """Configuration for a Transformer model.

    Both standard MHA and 5-Component Attention presets are precisely balanced
    to have exactly 99,994,176 parameters (~100M) when using SmolLM-135M's
    49,152 vocab size and tied embeddings.
    """

    vocab_size: int = 49152
    d_model: int = 576
    n_layers: int = 16
    n_heads: int = 9
    head_dim: int = 64
    mlp_hidden_dim: int = 1824
    attention_type: Literal["mha", "fiveattn"] = "fiveattn"
    gate_act: Literal["silu", "sigmoid", "gelu"] = "silu"
    max_seq_len: int = 1024
    rms_norm_eps: float = 1e-6
    tie_word_embeddings: bool = True
    rope_theta: float = 10000.0
    dropout: float = 0.0

    def __post_init__(self):
        if self.head_dim * self.n_heads != self.d_model:
            raise ValueError(
                f"d_model ({self.d_model}) must equal n_heads ({self.n_heads}) * head_dim ({self.head_dim})"
            )

    def count_parameters(self) -> dict[str, int]:
        """Calculates exact theoretical parameter count broken down by component."""
        # Embeddings
        embed_params = self.vocab_size * self.d_model

        # RMSNorms: 2 per layer (input_norm, post_attn_norm) + 1 final_norm
        norm_params = (self.n_layers * 2 * self.d_model) + self.d_model

        # Attention:
        # Standard MHA: Q, K, V, O = 4 * d_model * d_model
        # 5-Component: Q, K, V, G, O = 5 * d_model * d_model
        n_proj = 5 if self.attention_type == "fiveattn" else 4
        attn_params = self.n_layers * (n_proj * self.d_model * self.d_model)

        # SwiGLU MLP:
        # Gate, Up, Down projections = 3 * d_model * mlp_hidden_dim
        mlp_params = self.n_layers * (3 * self.d_model * self.mlp_hidden_dim)

        # LM Head (0 if tied with embeddings)
        head_params = 0 if self.tie_word_embeddings else (self.vocab_size * self.d_model)

        total = embed_params + norm_params + attn_params + mlp_params + head_params

        return {
            "embeddings": embed_params,
            "norms": norm_params,
            "attention": attn_params,
            "mlp": mlp_params,
            "head": head_params,
            "total": total,
        }

    @classmethod
    def get_100m_mha_config(cls, **overrides) -> "ModelConfig":
        """Returns the balanced ~100M parameter configuration for standard MHA.

        Total parameters: 99,994,176.
        """
        defaults = dict(
            vocab_size=49152,
            d_model=576,
            n_layers=16,
            n_heads=9,
            head_dim=64,
            mlp_hidden_dim=1824,
            attention_type="mha",
            tie_word_embeddings=True,
        )
        defaults.update(overrides)
        return cls(**defaults)

    @classmethod
    def get_100m_fiveattn_config(cls, **overrides) -> "ModelConfig":
        """Returns the balanced ~100M parameter configuration for 5-component attention.

        Total parameters: 99,994,176.
        """
        defaults = dict(
            vocab_size=49152,
            d_model=576,
            n_layers=16,
            n_heads=9,
            head_dim=64,
            mlp_hidden_dim=1632,
            attention_type="fiveattn",
            gate_act="silu",
            tie_word_embeddings=True,
        )
        defaults.update(overrides)
        return cls(**defaults)

    @classmethod
    def get_debug_config(cls, attention_type: str = "fiveattn", **overrides) -> "ModelConfig":
        """Returns a small configuration for fast local testing and debugging."""
        defaults = dict(
            vocab_size=49152,
            d_model=128,
            n_layers=2,
            n_heads=4,
            head_dim=32,
            mlp_hidden_dim=384,
            attention_type=attention_type,
            max_seq_len=128,
            tie_word_embeddings=True,
        )
        defaults.update(overrides)
        return cls(**defaults)


@dataclass
class TrainConfig:
    """Training configuration."""

    batch_size: int = 16
    gradient_accumulation_steps: int = 1
    seq_len: int = 512
    learning_rate: float = 5e-4
    min_learning_rate: float = 5e-5
    weight_decay: float = 0.01
    warmup_steps: int = 200
    max_steps: int = 2000
    eval_interval: int = 250
    eval_steps: int = 20
    save_interval: int = 500
    checkpoint_dir: str = "checkpoints"
    dataset_name: str = "roneneldan/TinyStories"
    device: str = "cuda"
    dtype: str = "bfloat16"
    compile: bool = False
    compile_mode: str = "default"  # 'default', 'reduce-overhead', 'max-autotune'
    autotune: bool = False
    seed: int = 42
