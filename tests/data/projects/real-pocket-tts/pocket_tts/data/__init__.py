"""Audio loading and writing support. Datasets for raw audio
or also including some metadata."""
