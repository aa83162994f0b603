from .commands import models
