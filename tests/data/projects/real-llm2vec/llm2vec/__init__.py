from .llm2vec import LLM2Vec
