"""Contains model code and wrappers for the models, as classes."""
