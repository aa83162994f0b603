def _autoload():
    import fp4_fp8_for_torch_mps  # noqa: F401
