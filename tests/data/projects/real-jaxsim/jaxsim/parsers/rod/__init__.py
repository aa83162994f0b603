from . import parser, utils
from .parser import build_model_description, extract_model_data
