"""KV cache wrappers with TurboQuant compression."""
