from .PQCodec import PQCodec
from .VQCodec import VQCodec
from .SQCodec import SQCodec
from .BaseCodec import BaseCodec