"""Public joint information extraction API."""
from .engine import JointIEEngine, JointIE, JointIEConfig
from .scoring import RawScorer
from .schema import JointSchema
from .result import JointResult
from .compiler import compile_schema
from .constraints import (AcyclicRelation, EntityOverlapPolicy, InverseRelation,
 MaxRelationsPerHead, MaxRelationsPerTail, NoSelfLoops, SymmetricRelation,
 TypedEndpoints, UniqueRelationPair, UniqueRelationSlot)
__all__ = ["JointIEEngine", "JointSchema", "JointResult"]
