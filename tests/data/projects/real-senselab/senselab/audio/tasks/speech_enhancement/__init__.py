""".. include:: ./doc.md"""  # noqa: D415

from .api import enhance_audios  # noqa: F401
