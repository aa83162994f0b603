"""Phase-aware pipeline orchestration: encode -> denoise -> decode."""
