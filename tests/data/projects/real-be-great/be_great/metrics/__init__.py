from be_great.metrics.base import BaseMetric
from be_great.metrics.discriminator import DiscriminatorMetric
from be_great.metrics.utility import MLEfficiency
from be_great.metrics.privacy import (
    DistanceToClosestRecord,
    kAnonymization,
    lDiversity,
    IdentifiabilityScore,
    DeltaPresence,
    MembershipInference,
)
from be_great.metrics.statistical import (
    ColumnShapes,
    ColumnPairTrends,
    BasicStatistics,
)
