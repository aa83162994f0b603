# LLM Judge Rewards
