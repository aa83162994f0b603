from pytorch_pfn_extras.dataset.shared_dataset import SharedDataset  # NOQA
from pytorch_pfn_extras.dataset.shared_dataset import (  # NOQA
    ItemNotFoundException,
)
from pytorch_pfn_extras.dataset.tabular.tabular_dataset import (  # NOQA
    TabularDataset,
)
