from .get_dataset import get_dataset, get_shared_label, concat_dataset
from .ner_model import TransformersNER
from .ner_tokenizer import NERTokenizer
from .ner_trainer import Trainer, GridSearcher
