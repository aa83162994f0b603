"""Install the fused Qwen3.5/3.6 full-attention RoPE Triton kernel."""

from chalk.ops.rope import install_qwen35_rope

__all__ = ["install_qwen35_rope"]
