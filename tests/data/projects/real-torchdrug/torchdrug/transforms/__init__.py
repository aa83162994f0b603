from .transform import NormalizeTarget, RemapAtomType, RandomBFSOrder, Shuffle, VirtualNode, \
        VirtualAtom, TruncateProtein, ProteinView, Compose

__all__ = [
    "NormalizeTarget", "RemapAtomType", "RandomBFSOrder", "Shuffle",
    "VirtualNode", "VirtualAtom", "TruncateProtein", "ProteinView", "Compose",
]
