"""Data classes."""

# Symbols that need to be seen outside this submodule.

from .batches import Batch  # noqa: F401
from .conllu import parse_from_path, parse_from_string  # noqa: F401
from .datamodules import DataModule  # noqa: F401
from .indexes import Index  # noqa: F401
from .logits import Logits  # noqa: F401
from .mappers import Mapper  # noqa: F401
