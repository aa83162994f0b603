"""Grammar constraint module for ORIGAMI.

Provides pushdown automaton (PDA) based grammar constraints
for valid JSON token generation, and schema-based semantic constraints.
"""

from .json_grammar import JSONGrammarPDA
from .schema_deriver import SchemaDeriver
from .schema_pda import SchemaPDA

__all__ = ["JSONGrammarPDA", "SchemaDeriver", "SchemaPDA"]
