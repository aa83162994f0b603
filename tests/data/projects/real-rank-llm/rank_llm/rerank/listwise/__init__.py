from .rank_gemini import SafeGenai
from .rank_gpt import SafeOpenai
from .rank_listwise_os_llm import RankListwiseOSLLM
from .vicuna_reranker import VicunaReranker
from .zephyr_reranker import ZephyrReranker

__all__ = [
    "RankListwiseOSLLM",
    "VicunaReranker",
    "ZephyrReranker",
    "SafeOpenai",
    "SafeGenai",
]
