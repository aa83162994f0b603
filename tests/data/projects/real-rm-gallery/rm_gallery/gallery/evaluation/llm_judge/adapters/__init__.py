# Framework Adapters for LLM Judge
