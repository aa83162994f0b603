"""Activation Resampler."""
