from .dataloader_creator import DataloaderCreator
from .device_dataloader import DeviceDataLoader
