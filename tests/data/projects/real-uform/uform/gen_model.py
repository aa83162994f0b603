from uform.torch_decoders import VLMForCausalLM, VLMProcessor # legacy path
