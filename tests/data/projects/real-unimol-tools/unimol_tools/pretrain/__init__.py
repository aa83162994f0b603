from .dataset import LMDBDataset, UniMolDataset
from .loss import UniMolLoss
from .preprocess import (
    build_dictionary,
    preprocess_dataset,
    compute_lmdb_dist_stats,
    count_input_data,
    count_lmdb_entries,
)
from .pretrain_config import PretrainConfig
from .trainer import UniMolPretrainTrainer
from .unimol import UniMolModel
