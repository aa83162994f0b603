from rl4co.models.common.improvement.base import (
    ImprovementDecoder,
    ImprovementEncoder,
    ImprovementPolicy,
)
