from .covmat import build_conformer
from .featurization import MoleculeFeaturizer
from .io import (
    get_base_data_dir,
    get_local_cache,
    load_json,
    load_memmap,
    load_npz,
    load_pkl,
    save_memmap,
    save_pkl,
)
from .sample import batched_sampling
from .utils import (
    Queue,
    extend_graph_order_radius,
    get_atomic_number_and_charge,
    signed_volume,
)
from .xtb import xtb_energy, xtb_optimize

__all__ = [
    "MoleculeFeaturizer",
    "Queue",
    "load_json",
    "load_pkl",
    "save_pkl",
    "load_npz",
    "load_memmap",
    "save_memmap",
    "get_base_data_dir",
    "get_local_cache",
    "get_atomic_number_and_charge",
    "build_conformer",
    "extend_graph_order_radius",
    "batched_sampling",
    "signed_volume",
    "xtb_energy",
    "xtb_optimize",
]
