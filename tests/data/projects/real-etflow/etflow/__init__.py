from etflow.models.model import BaseFlow as BaseFlow
