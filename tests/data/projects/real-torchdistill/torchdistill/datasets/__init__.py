from . import sample_loader, wrapper
