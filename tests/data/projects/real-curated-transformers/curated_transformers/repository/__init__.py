from .file import LocalFile, RepositoryFile
from .fsspec import FsspecArgs, FsspecFile, FsspecRepository
from .hf_hub import HfHubFile, HfHubRepository
from .repository import ModelRepository, Repository, TokenizerRepository
from .transaction import TransactionContext

__all__ = [
    "FsspecArgs",
    "FsspecFile",
    "FsspecRepository",
    "HfHubFile",
    "HfHubRepository",
    "LocalFile",
    "ModelRepository",
    "Repository",
    "RepositoryFile",
    "TokenizerRepository",
    "TransactionContext",
]
