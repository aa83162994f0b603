# LLM Judge Templates
