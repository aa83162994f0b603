from hurricore.utils.collators.hf_llm_it_collator import HFLLMITCollator  # noqa: F401
