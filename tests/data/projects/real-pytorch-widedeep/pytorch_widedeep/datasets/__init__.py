from ._base import (
    load_rf1,
    load_adult,
    load_birds,
    load_ecoli,
    load_bio_kdd04,
    load_movielens100k,
    load_womens_ecommerce,
    load_california_housing,
)

__all__ = [
    "load_bio_kdd04",
    "load_adult",
    "load_ecoli",
    "load_california_housing",
    "load_birds",
    "load_rf1",
    "load_womens_ecommerce",
    "load_movielens100k",
]
