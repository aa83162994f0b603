# ruff: noqa: F401
from .modelutils import find_layers, gen_conditions, torch_snr_error
from .datautils import get_loaders
from . import comm_utils
from . import logger
