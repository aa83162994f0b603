from ._shim import reexport

reexport("qwen3_asr_causal.causal", globals())

