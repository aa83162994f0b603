"""Inference adapters: file formats, the adapter stack, stored-base bypass chains."""
