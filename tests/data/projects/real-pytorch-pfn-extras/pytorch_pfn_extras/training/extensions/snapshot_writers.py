from pytorch_pfn_extras.writing import *  # NOQA

# TODO(ecastill) deprecate this
