from .sure import ENSURELoss
from .measplit import (
    Phase2PhaseLoss,
    Artifact2ArtifactLoss,
    WeightedSplittingLoss,
    RobustSplittingLoss,
)
