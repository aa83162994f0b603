import para_attn  # noqa: F401
