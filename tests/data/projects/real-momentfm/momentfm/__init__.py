from .models.moment import MOMENT, MOMENTPipeline
