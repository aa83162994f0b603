_all__ = []

try:
    from byaldi.integrations._langchain import ByaldiLangChainRetriever

    _all__.append("ByaldiLangChainRetriever")
except ImportError:
    pass
