from .free_form_flow import FreeFormFlow
