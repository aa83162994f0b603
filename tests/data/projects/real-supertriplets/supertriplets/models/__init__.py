from ._loader import load_pretrained_model
