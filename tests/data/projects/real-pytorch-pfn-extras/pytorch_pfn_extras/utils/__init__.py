from pytorch_pfn_extras.utils import checkpoint  # NOQA
from pytorch_pfn_extras.utils import comparer  # NOQA
