""".. include:: ./doc.md"""  # noqa: D415

from .api import augment_audios  # noqa: F401
