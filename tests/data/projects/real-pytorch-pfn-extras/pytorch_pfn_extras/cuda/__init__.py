from pytorch_pfn_extras.cuda._allocator import stream  # NOQA
from pytorch_pfn_extras.cuda._allocator import use_torch_mempool_in_cupy  # NOQA
from pytorch_pfn_extras.cuda._allocator import (  # NOQA
    use_default_mempool_in_cupy,
)
