from .base import AtomMessagePassing, BondMessagePassing
from .mol_atom_bond import MABAtomMessagePassing, MABBondMessagePassing
from .multi import MulticomponentMessagePassing
from .proto import MABMessagePassing, MessagePassing

__all__ = [
    "MessagePassing",
    "MABMessagePassing",
    "AtomMessagePassing",
    "BondMessagePassing",
    "MABAtomMessagePassing",
    "MABBondMessagePassing",
    "MulticomponentMessagePassing",
]
