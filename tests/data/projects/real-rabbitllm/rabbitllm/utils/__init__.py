from .compression import compress_layer_state_dict, uncompress_layer_state_dict
from .hub import find_or_create_local_splitted_path
from .memory import NotEnoughSpaceException, clean_memory
from .platform import is_flash_attention_available
from .splitting import load_layer, split_and_save_layers

__all__ = [
    "NotEnoughSpaceException",
    "clean_memory",
    "compress_layer_state_dict",
    "uncompress_layer_state_dict",
    "find_or_create_local_splitted_path",
    "load_layer",
    "split_and_save_layers",
    "is_flash_attention_available",
]
