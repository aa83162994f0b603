from . import data, losses, models, tasks  # noqa: F401
