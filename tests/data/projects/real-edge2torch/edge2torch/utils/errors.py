"""
Package-specific exception hierarchy.

Why this file exists
--------------------
This file defines the error types that give the package a consistent and
recognizable failure surface. Keeping these exceptions in one place makes
error handling easier to understand, reuse, and extend across the codebase.

Role in the package
-------------------
This is an internal error-definition module. It defines the exception
classes used to signal package-specific problems in validation,
compilation, and interpretation. It should contain the exception
hierarchy itself, not error-producing logic or higher-level API
behavior.
"""


class Edge2TorchError(Exception):
    """
    Base exception for edge2torch public-API failures.

    Raised by ``compile_graph()``, ``align_features_to_input_nodes()``,
    ``customize_model()``, ``edge_weights()``, and ``interpret_model()``
    when inputs are invalid or an operation cannot be completed.
    """


class InputValidationError(Edge2TorchError):
    """Raised when public API inputs are invalid."""


class GraphValidationError(Edge2TorchError):
    """Raised when the graph is biologically or structurally invalid."""


class CompilationError(Edge2TorchError):
    """Raised when graph compilation fails."""


class InterpretationError(Edge2TorchError):
    """Raised when model interpretation fails."""
