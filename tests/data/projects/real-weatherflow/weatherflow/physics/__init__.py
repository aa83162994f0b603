"""Physics-based constraints and models for weather prediction."""

# Will be populated in future versions