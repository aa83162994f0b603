"""Diffusion pieces: objectives, timestep samplers, sampling."""
