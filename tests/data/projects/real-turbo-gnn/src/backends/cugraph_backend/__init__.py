from .conv import CugraphBackend

doc = """
CuGraph backend registration. Importing this module registers the 'cugraph' backend.
"""

__all__ = ["CugraphBackend"]
