from rl4co.models.common.constructive.autoregressive import (
    AutoregressiveDecoder,
    AutoregressiveEncoder,
    AutoregressivePolicy,
)
from rl4co.models.common.constructive.base import (
    ConstructiveDecoder,
    ConstructiveEncoder,
    ConstructivePolicy,
)
from rl4co.models.common.constructive.nonautoregressive import (
    NonAutoregressiveDecoder,
    NonAutoregressiveEncoder,
    NonAutoregressivePolicy,
)
from rl4co.models.common.improvement import (
    ImprovementDecoder,
    ImprovementEncoder,
    ImprovementPolicy,
)
from rl4co.models.common.transductive.base import TransductiveModel
