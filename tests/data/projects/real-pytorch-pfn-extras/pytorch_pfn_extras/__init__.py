# Configure the logging before instantiating anything else
from pytorch_pfn_extras import logging  # NOQA

logging._configure_logging()

from pytorch_pfn_extras import config  # NOQA
from pytorch_pfn_extras import cuda  # NOQA
from pytorch_pfn_extras import dataloaders  # NOQA
from pytorch_pfn_extras import dataset  # NOQA
from pytorch_pfn_extras import distributed  # NOQA
from pytorch_pfn_extras import engine  # NOQA
from pytorch_pfn_extras import handler  # NOQA
from pytorch_pfn_extras import nn  # NOQA
from pytorch_pfn_extras import profiler  # NOQA
from pytorch_pfn_extras import reporting  # NOQA
from pytorch_pfn_extras import runtime  # NOQA
from pytorch_pfn_extras import training  # NOQA
from pytorch_pfn_extras import utils  # NOQA
from pytorch_pfn_extras import writing  # NOQA
from pytorch_pfn_extras._tensor import as_ndarray  # NOQA
from pytorch_pfn_extras._tensor import as_numpy_dtype  # NOQA
from pytorch_pfn_extras._tensor import from_ndarray  # NOQA
from pytorch_pfn_extras._tensor import from_numpy_dtype  # NOQA
from pytorch_pfn_extras._tensor import get_xp  # NOQA
from pytorch_pfn_extras._torch_version import requires  # NOQA
from pytorch_pfn_extras._version import __version__  # NOQA
from pytorch_pfn_extras.runtime._map import map  # NOQA
from pytorch_pfn_extras.runtime._to import to  # NOQA

if requires("2.0.0"):
    from pytorch_pfn_extras import ops  # NOQA
    from pytorch_pfn_extras._dynamo import compile  # NOQA
