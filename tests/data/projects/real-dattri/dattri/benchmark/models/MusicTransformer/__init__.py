"""This module defines the MusicTransformer model for the benchmark."""
