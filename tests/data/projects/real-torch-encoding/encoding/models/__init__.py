from .model_zoo import get_model
from .model_zoo import model_list
from .model_store import get_model_file, pretrained_model_list

from .sseg import get_segmentation_model, MultiEvalModule
