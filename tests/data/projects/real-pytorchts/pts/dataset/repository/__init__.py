from .datasets import dataset_recipes
