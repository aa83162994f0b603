"""Utilities for TorchSim."""
