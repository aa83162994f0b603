"""RDKit molecular utilities."""
from .molecule import RDMolecule

__all__ = [
    "RDMolecule",
]
