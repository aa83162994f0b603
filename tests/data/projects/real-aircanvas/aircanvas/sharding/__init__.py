"""One-time model splitting: checkpoint -> per-block quantized shards + manifest."""
