from ._factory import create_model, list_models, load_checkpoint
