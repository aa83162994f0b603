from .misc import set_seed, load_config
