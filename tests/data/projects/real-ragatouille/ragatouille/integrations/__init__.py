from ragatouille.integrations._langchain import (
    RAGatouilleLangChainCompressor,
    RAGatouilleLangChainRetriever,
)

__all__ = ["RAGatouilleLangChainRetriever", "RAGatouilleLangChainCompressor"]
