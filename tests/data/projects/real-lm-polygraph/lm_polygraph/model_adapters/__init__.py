from .whitebox_model_basic import WhiteboxModelBasic
from .visual_whitebox_model import VisualWhiteboxModel
from .whitebox_model_vllm import WhiteboxModelvLLM
from lm_polygraph.utils.model import WhiteboxModel
from lm_polygraph.utils.model import BlackboxModel
