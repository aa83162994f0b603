from pytorch_pfn_extras.distributed._dataset_util import (  # NOQA
    create_distributed_subset_indices,
)
from pytorch_pfn_extras.distributed._distributed_validation_sampler import (  # NOQA
    DistributedValidationSampler,
)
from pytorch_pfn_extras.distributed._initialize import (  # NOQA
    initialize_ompi_environment,
)
