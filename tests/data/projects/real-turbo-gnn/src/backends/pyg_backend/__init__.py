from .conv import PygBackend

doc = """
PyTorch Geometric backend registration. Importing this module registers the 'pyg' backend.
"""

__all__ = ["PygBackend"]
