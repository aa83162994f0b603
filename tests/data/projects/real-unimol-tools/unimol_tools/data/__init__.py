from .datahub import DataHub
from .dictionary import Dictionary
