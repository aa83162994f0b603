"""Sparse autoencoder components."""
