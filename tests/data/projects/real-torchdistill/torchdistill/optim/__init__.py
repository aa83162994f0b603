from . import scheduler
