"""Activation resampler utils."""
