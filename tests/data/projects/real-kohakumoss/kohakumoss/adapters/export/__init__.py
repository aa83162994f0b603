"""Adapter export: native LyCORIS, ComfyUI, merged checkpoints, diffusers shards."""
