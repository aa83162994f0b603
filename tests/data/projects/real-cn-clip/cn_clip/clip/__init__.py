from .bert_tokenizer import FullTokenizer

_tokenizer = FullTokenizer()
from .model import convert_state_dict
from .utils import load_from_name, available_models, tokenize, image_transform, load
