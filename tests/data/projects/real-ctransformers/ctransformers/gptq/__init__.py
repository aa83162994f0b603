from .llm import LLM
from .hub import AutoModelForCausalLM
