from nanorlhf.nanovllm.core import llm_engine
from nanorlhf.nanovllm.utils import sampling_params

SamplingParams = sampling_params.SamplingParams
LLM = llm_engine.LLMEngine
