from .length_bucket import LengthBucketedQueryEncoder
from .sasrec import (
    DiffTransformerBlock,
    DiffTransformerLayer,
    PositionAwareAggregator,
    SasRec,
    SasRecBody,
    SasRecTransformerLayer,
)
from .twotower import ItemTower, QueryTower, TwoTower, TwoTowerBody
