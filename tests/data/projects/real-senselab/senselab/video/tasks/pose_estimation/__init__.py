""".. include:: ./doc.md"""  # noqa: D415

from .api import estimate_pose, visualize_pose  # noqa: F401
