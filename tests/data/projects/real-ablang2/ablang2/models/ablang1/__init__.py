from .tokenizers import ABtokenizer
from .model import AbLang, AbRep, AbHead
from .pretrained import pretrained