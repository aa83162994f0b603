from .universal_KAN import UniversalKANNode, UniversalKANLinear, UniversalKAN
from.skan import SKANLinear_pure, SKAN_pure