from .__version import __version__
from .hub import list_models, list_datasets
