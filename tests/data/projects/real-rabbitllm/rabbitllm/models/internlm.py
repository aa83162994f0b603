# Backward-compatibility shim — implementation moved to base_models.py.
from .base_models import RabbitLLMInternLM as RabbitLLMInternLM  # noqa: F401
