from outformer.formatters.highlight import highlight_values

__all__ = ["highlight_values"]
