from .conv import DglBackend

doc = """
DGL backend registration. Importing this module registers the 'dgl' backend.
"""

__all__ = ["DglBackend"]
