from .neurobench_model import NeuroBenchModel
from .snntorch_models import SNNTorchModel
from .torch_model import TorchModel
from ..utils import _lazy_import

__all__ = ["NeuroBenchModel", "SNNTorchModel", "TorchModel"]
