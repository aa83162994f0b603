# LLM Judge Evaluators
