from .coupling_flow import CouplingFlow

from bayesflow.utils._docs import _add_imports_to_all

_add_imports_to_all()
