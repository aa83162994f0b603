from . import file_reader_functions
from .collator import RetrievalCollator
from .data_args import DataArguments
from .file_reader import (
    available_loaders,
    load_qids,
    load_qrel,
    load_records,
    register_loader,
)
from .file_transforms import (
    group_qrel_triplets_from_csv,
    group_qrel_triplets_from_sydir_corpus,
)
from .ir_dataset_binary import BinaryDataset
from .ir_dataset_multilevel import MultiLevelDataset
from .ir_encoding_dataset import EncodingDataset
from .vector_cache_mixin import VectorCacheMixin
