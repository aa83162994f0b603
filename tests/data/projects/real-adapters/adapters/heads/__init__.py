# flake8: noqa
from .base import *
from .dependency_parsing import *
from .language_modeling import BertStyleMaskedLMHead, CausalLMHead, Seq2SeqLMHead
from .model_mixin import ModelWithFlexibleHeadsAdaptersMixin
