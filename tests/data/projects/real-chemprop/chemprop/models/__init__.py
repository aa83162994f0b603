from .model import MPNN
from .mol_atom_bond import MolAtomBondMPNN
from .multi import MulticomponentMPNN
from .utils import load_model, save_model

__all__ = ["MPNN", "MolAtomBondMPNN", "MulticomponentMPNN", "load_model", "save_model"]
