from .collate import (
    BatchMolAtomBondGraph,
    BatchMolGraph,
    MolAtomBondTrainingBatch,
    MulticomponentTrainingBatch,
    TrainingBatch,
    collate_batch,
    collate_mol_atom_bond_batch,
    collate_multicomponent,
)
from .dataloader import build_dataloader
from .datapoints import (
    LazyMoleculeDatapoint,
    LazyReactionDatapoint,
    MolAtomBondDatapoint,
    MoleculeDatapoint,
    ReactionDatapoint,
)
from .datasets import (
    CuikmolmakerDataset,
    CuikmolmakerReactionDataset,
    Datum,
    MolAtomBondDataset,
    MolAtomBondDatum,
    MoleculeDataset,
    MolGraphDataset,
    MulticomponentDataset,
    ReactionDataset,
)
from .molgraph import MolGraph
from .samplers import ClassBalanceSampler, SeededSampler
from .splitting import SplitType, make_split_indices, split_data_by_indices

__all__ = [
    "BatchMolAtomBondGraph",
    "BatchMolGraph",
    "TrainingBatch",
    "collate_batch",
    "MolAtomBondTrainingBatch",
    "collate_mol_atom_bond_batch",
    "MulticomponentTrainingBatch",
    "collate_multicomponent",
    "build_dataloader",
    "LazyMoleculeDatapoint",
    "LazyReactionDatapoint",
    "MoleculeDatapoint",
    "MolAtomBondDatapoint",
    "ReactionDatapoint",
    "MoleculeDataset",
    "CuikmolmakerDataset",
    "CuikmolmakerReactionDataset",
    "ReactionDataset",
    "Datum",
    "MolAtomBondDatum",
    "MolAtomBondDataset",
    "MulticomponentDataset",
    "MolGraphDataset",
    "MolGraph",
    "ClassBalanceSampler",
    "SeededSampler",
    "SplitType",
    "make_split_indices",
    "split_data_by_indices",
]
