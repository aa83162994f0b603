"""Dataloaders and data processing utilities"""

from .anemoi_dataloader import AnemoiDataset
from .nnja_ai import SensorDataset
from .weather_station_reader import WeatherStationReader
