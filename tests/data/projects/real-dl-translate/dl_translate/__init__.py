from . import lang
from . import utils
from ._translation_model import TranslationModel
