from .utils import remove_path_suffixes
from .weights import check_model_weights
