
from .data import Data as Data
from .tokenizer import Tokenizer as Tokenizer
from .model import Model as Model
