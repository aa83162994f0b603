from .generic_utils import (
    average_arrays_in_dic,
    flatten_dict,
    get_wav_random_start_stop,
    has_arg,
    unet_decoder_args,
)
from .parser_utils import (
    prepare_parser_from_dict,
    parse_args_as_dict,
    str_int_float,
    str2bool,
    str2bool_arg,
    isfloat,
    isint,
)
from .torch_utils import tensors_to_device, to_cuda, get_device

# The functions above were all in asteroid/utils.py before refactoring into
# asteroid/utils/*_utils.py files. They are imported for backward compatibility.

__all__ = [
    "prepare_parser_from_dict",
    "parse_args_as_dict",
    "str_int_float",
    "str2bool",
    "str2bool_arg",
    "isfloat",
    "isint",
    "tensors_to_device",
    "to_cuda",
    "get_device",
    "has_arg",
    "flatten_dict",
    "average_arrays_in_dic",
    "get_wav_random_start_stop",
    "unet_decoder_args",
]
