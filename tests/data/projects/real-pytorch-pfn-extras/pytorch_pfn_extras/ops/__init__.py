from pytorch_pfn_extras.ops.register import OpDesc, register  # NOQA
