"""This module contains functions that generate model ensembles."""
