from ._shim import reexport

reexport("qwen3_asr_causal.stable_commit", globals())

