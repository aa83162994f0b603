"""Sparse autoencoder model & components."""
