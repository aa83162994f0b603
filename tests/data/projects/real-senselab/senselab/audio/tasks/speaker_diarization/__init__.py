""".. include:: ./doc.md"""  # noqa: D415

from .api import diarize_audios  # noqa: F401
