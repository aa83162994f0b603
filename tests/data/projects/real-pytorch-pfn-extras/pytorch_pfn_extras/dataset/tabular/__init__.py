from pytorch_pfn_extras.dataset.tabular import _asmode  # NOQA
from pytorch_pfn_extras.dataset.tabular import _concat  # NOQA
from pytorch_pfn_extras.dataset.tabular import _join  # NOQA
from pytorch_pfn_extras.dataset.tabular import _slice  # NOQA
from pytorch_pfn_extras.dataset.tabular import _transform  # NOQA
from pytorch_pfn_extras.dataset.tabular import _with_converter  # NOQA
from pytorch_pfn_extras.dataset.tabular.delegate_dataset import (  # NOQA
    DelegateDataset,
)
from pytorch_pfn_extras.dataset.tabular.from_data import from_data  # NOQA
