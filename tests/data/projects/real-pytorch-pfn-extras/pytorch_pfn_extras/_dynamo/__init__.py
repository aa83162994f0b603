from pytorch_pfn_extras._dynamo._compile import compile  # NOQA
