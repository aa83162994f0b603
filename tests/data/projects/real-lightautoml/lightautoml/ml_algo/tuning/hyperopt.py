"""Classes to implement hyperparameter tuning using HyperOpt."""
