from .train_validate_test import train_validate_test, train, validate, test
