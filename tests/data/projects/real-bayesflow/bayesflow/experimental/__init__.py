"""
Unstable or largely untested networks, proceed with caution.
"""

from .free_form_flow import FreeFormFlow

from ..utils._docs import _add_imports_to_all

_add_imports_to_all()
