from vallex import utils, models, modules, data
__all__ = [
    "data",
    "models",
    "modules",
    "utils",
]
