from ._base import BaseCluster

__all__ = [
    "BaseCluster",
]
