from imagen_pytorch.imagen_pytorch import Imagen, Unet
from imagen_pytorch.imagen_pytorch import NullUnet
from imagen_pytorch.imagen_pytorch import BaseUnet64, SRUnet256, SRUnet1024
from imagen_pytorch.trainer import ImagenTrainer
from imagen_pytorch.version import __version__

# imagen using the elucidated ddpm from Tero Karras' new paper

from imagen_pytorch.elucidated_imagen import ElucidatedImagen

# config driven creation of imagen instances

from imagen_pytorch.configs import UnetConfig, ImagenConfig, ElucidatedImagenConfig, ImagenTrainerConfig

# utils

from imagen_pytorch.utils import load_imagen_from_checkpoint

# video

from imagen_pytorch.imagen_video import Unet3D
