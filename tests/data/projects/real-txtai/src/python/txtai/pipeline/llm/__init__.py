"""
LLM imports
"""

from .factory import GenerationFactory
from .generation import Generation
from .huggingface import *
from .litellm import LiteLLM
from .llama import LlamaCpp
from .llm import LLM
from .rag import RAG
