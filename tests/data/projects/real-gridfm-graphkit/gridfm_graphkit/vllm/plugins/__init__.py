"""vLLM plugin entry points for gridfm-graphkit."""
