from torch_dftd import _version  # NOQA

__version__ = _version.__version__
