from .core import load_model, predict, predict_from_files

__version__ = "2.0.1"
