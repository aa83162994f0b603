from horovod.runner import run

__version__ = '0.28.1'
