"""Helper functions that are used to manipulate Pytorch models."""
