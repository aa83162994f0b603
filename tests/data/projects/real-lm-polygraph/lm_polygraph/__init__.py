from .utils.model import WhiteboxModel, BlackboxModel
from .utils.manager import UEManager
from .utils.estimate_uncertainty import estimate_uncertainty
from .utils.causal_lm_with_uncertainty import CausalLMWithUncertainty
from .utils.api_with_uncertainty import APIWithUncertainty
from .utils.dataset import Dataset
