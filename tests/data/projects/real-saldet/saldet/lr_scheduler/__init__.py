from .lr_scheduler import create_scheduler
