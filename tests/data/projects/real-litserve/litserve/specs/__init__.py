from litserve.specs.openai import ChatCompletionChunk, ChatCompletionRequest, ChatCompletionResponse, OpenAISpec
from litserve.specs.openai_embedding import EmbeddingRequest, EmbeddingResponse, OpenAIEmbeddingSpec

__all__ = [
    "OpenAISpec",
    "OpenAIEmbeddingSpec",
    "EmbeddingRequest",
    "EmbeddingResponse",
    "ChatCompletionRequest",
    "ChatCompletionResponse",
    "ChatCompletionChunk",
]
