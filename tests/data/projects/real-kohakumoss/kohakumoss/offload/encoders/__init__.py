"""Frozen-encoder placement: the text encoder's and the VAE's resident / offload / stream
placements and the text encoder's memory model."""
