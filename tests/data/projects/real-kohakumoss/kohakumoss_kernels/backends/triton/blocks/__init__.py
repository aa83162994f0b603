"""Triton MOSS block ops: norms, FFN, residual, RoPE, loss and the fused linears."""
