from .tensor import *  # pylint: disable=redefined-builtin
