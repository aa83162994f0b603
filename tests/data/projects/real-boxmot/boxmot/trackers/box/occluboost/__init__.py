"""OccluBoost box-tracker implementation package."""
