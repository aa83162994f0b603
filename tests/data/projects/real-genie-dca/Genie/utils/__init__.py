# Utility functions
from .codon_utils import (
    CODON_TO_AMINO_LETTER,
    ECOLI_CODON_USAGE,
    STANDARD_CODON_USAGE,
    build_codon_neighbors,
    build_codon_to_index_map,
    build_amino_to_codons_map,
    build_codon_neighbor_tensor,
    build_codon_mutation_lookup,
    build_codon_usage_tensor,
    precompute_sampling_tensors
)
from .parser import parse_arguments

__all__ = [
    'CODON_TO_AMINO_LETTER',
    'ECOLI_CODON_USAGE',
    'STANDARD_CODON_USAGE',
    'build_codon_neighbors',
    'build_codon_to_index_map',
    'build_amino_to_codons_map',
    'build_codon_neighbor_tensor',
    'build_codon_mutation_lookup',
    'build_codon_usage_tensor',
    'precompute_sampling_tensors',
    'parse_arguments'
]
