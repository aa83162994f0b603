"""TileLang text-encoder ops: token-serial gated delta rule and causal attention."""
