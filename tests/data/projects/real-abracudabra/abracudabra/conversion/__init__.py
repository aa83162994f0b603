"""Convert dataframes, arrays, and tensors."""
