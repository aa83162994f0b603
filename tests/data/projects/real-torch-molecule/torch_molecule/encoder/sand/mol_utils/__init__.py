"""Molecular graphs and RDKit featurization."""

from .graph import MolecularGraph
from .rdkit.molecule import RDMolecule

__all__ = ["MolecularGraph", "RDMolecule"]
