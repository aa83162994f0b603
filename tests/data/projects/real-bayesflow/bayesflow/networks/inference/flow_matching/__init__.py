from .flow_matching import FlowMatching

from bayesflow.utils._docs import _add_imports_to_all

_add_imports_to_all()
