__all__ = ["neuroevolution", "numerical", "hpo_wrapper"]
