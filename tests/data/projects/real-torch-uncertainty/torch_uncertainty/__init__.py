# ruff: noqa: F401
from importlib.metadata import PackageNotFoundError, version

from .utils import TULightningCLI, TUTrainer

__version__ = version("torch_uncertainty")
