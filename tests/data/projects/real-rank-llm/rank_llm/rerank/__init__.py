import logging

from .api_keys import (
    get_azure_openai_args,
    get_genai_api_key,
    get_openai_api_key,
    get_openrouter_api_key,
)
from .identity_reranker import IdentityReranker
from .rankllm import RankLLM
from .reranker import Reranker

logging.basicConfig(
    level=logging.INFO, format="%(asctime)s - %(levelname)s - %(message)s"
)

__all__ = [
    "IdentityReranker",
    "RankLLM",
    "get_azure_openai_args",
    "get_openai_api_key",
    "get_genai_api_key",
    "get_openrouter_api_key",
    "Reranker",
]
