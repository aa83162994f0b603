from ._shim import reexport

reexport("qwen3_asr_causal.features", globals())

