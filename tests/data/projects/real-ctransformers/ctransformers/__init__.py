from .llm import Config, LLM
from .hub import AutoConfig, AutoModelForCausalLM, AutoTokenizer
