from .version import VERSION, VERSION_SHORT
