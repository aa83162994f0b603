DIFFUSERS_TRANSFORMER_BLOCK_NAMES = [
    "transformer_blocks",
    "single_transformer_blocks",
    "temporal_transformer_blocks",
    "blocks",
    "layers",
]
