from .consistency_model import ConsistencyModel
from .stable_consistency_model import StableConsistencyModel

from bayesflow.utils._docs import _add_imports_to_all

_add_imports_to_all()
