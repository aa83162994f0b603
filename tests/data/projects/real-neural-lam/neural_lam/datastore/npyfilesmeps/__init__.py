"""MEPS-specific datastore exposing numpy-based datasets."""

# Local
from .store import NpyFilesDatastoreMEPS  # noqa
