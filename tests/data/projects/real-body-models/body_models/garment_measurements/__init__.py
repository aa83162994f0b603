"""Public GarmentMeasurements API."""

from body_models.garment_measurements._model import (
    GarmentMeasurementsIdentity,
)

__all__ = [
    "GarmentMeasurementsIdentity",
]
