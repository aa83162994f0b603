from .dictionary import PerfectHash, Dictionary
from .graph import Graph, PackedGraph, cat
from .molecule import Molecule, PackedMolecule
from .protein import Protein, PackedProtein
from .dataset import MoleculeDataset, ReactionDataset, ProteinDataset, \
    ProteinPairDataset, ProteinLigandDataset, \
    NodeClassificationDataset, KnowledgeGraphDataset, SemiSupervised, \
    semisupervised, key_split, scaffold_split, ordered_scaffold_split
from .dataloader import DataLoader, graph_collate
from . import constant
from . import feature

__all__ = [
    "Graph", "PackedGraph", "Molecule", "PackedMolecule", "Protein", "PackedProtein", "PerfectHash", "Dictionary",
    "MoleculeDataset", "ReactionDataset", "NodeClassificationDataset", "KnowledgeGraphDataset", "SemiSupervised",
    "ProteinDataset", "ProteinPairDataset", "ProteinLigandDataset",
    "semisupervised", "key_split", "scaffold_split", "ordered_scaffold_split",
    "DataLoader", "graph_collate", "feature", "constant",
]
