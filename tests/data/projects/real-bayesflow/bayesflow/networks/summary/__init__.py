r"""
Neural networks for learning maximally informative compressions of data modalities
such as images, timeseries, sets and combinations thereof.
"""

from .summary_network import SummaryNetwork
from .convolutional import ConvolutionalNetwork
from .deep_set import DeepSet
from .fusion import FusionNetwork
from .recurrent import TimeSeriesNetwork
from .transformers import SetTransformer, TimeSeriesTransformer, FusionTransformer

from bayesflow.utils._docs import _add_imports_to_all

_add_imports_to_all()
