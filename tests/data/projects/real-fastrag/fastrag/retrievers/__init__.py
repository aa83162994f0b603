from .colbert import ColBERTRetriever
