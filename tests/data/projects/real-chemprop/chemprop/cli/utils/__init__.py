from .MAB_parsing import build_MAB_data_from_files
from .actions import LookupAction
from .args import activation_function_argument, bounded
from .command import Subcommand
from .parsing import (
    build_data_from_files,
    get_column_names,
    make_datapoints,
    make_dataset,
    parse_activation,
    parse_indices,
)
from .utils import _pop_attr, _pop_attr_d, format_probability_string, pop_attr

__all__ = [
    "activation_function_argument",
    "bounded",
    "LookupAction",
    "Subcommand",
    "build_data_from_files",
    "build_MAB_data_from_files",
    "make_datapoints",
    "make_dataset",
    "get_column_names",
    "parse_activation",
    "parse_indices",
    "actions",
    "args",
    "command",
    "format_probability_string",
    "parsing",
    "utils",
    "pop_attr",
    "_pop_attr",
    "_pop_attr_d",
]
