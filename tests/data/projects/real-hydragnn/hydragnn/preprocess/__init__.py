from .dataset_descriptors import AtomFeatures, StructureFeatures

from .utils import (
    check_if_graph_size_variable,
    check_if_graph_size_variable_dist,
    get_radius_graph,
    get_radius_graph_pbc,
    get_radius_graph_config,
    get_radius_graph_pbc_config,
    RadiusGraphPBC,
    update_predicted_values,
    update_atom_features,
    stratified_sampling,
)

from .load_data import (
    dataset_loading_and_splitting,
    create_dataloaders,
    split_dataset,
    transform_raw_data_to_serialized,
    total_to_train_val_test_pkls,
    HydraDataLoader,
)
from .serialized_dataset_loader import (
    SerializedDataLoader,
)
from .lsms_raw_dataset_loader import LSMS_RawDataLoader
from .cfg_raw_dataset_loader import CFG_RawDataLoader
from .compositional_data_splitting import compositional_stratified_splitting
