from yasem.splade_embedder import SpladeEmbedder  # noqa: F401
