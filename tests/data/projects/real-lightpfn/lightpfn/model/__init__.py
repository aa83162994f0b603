"""LightPFN architecture; the inference package does not import synthetic priors."""
