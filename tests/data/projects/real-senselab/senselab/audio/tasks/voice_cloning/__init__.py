""".. include:: ./doc.md"""  # noqa: D415

from .api import clone_voices  # noqa: F401
