"""Triton text-encoder ops: causal GQA attention and the gated delta rule."""
