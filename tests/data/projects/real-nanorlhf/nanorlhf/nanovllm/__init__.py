from nanorlhf.nanovllm.api import LLM, SamplingParams
