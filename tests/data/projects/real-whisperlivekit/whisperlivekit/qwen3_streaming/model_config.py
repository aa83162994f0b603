from ._shim import reexport

reexport("qwen3_asr_causal.config", globals())

