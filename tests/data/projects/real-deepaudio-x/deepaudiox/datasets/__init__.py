"""
The `datasets` package provides dataset loading and preprocessing utilities
for DeepAudioX, including custom PyTorch Dataset classes and data split logic.
"""
