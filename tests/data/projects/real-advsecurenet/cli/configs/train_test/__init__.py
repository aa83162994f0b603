# Title of the module
MODULE_TITLE = "Training and Testing Configurations"

# Description of the module
MODULE_DESCRIPTION = """
    This module contains the configurations for training and testing the models. The configurations include the
    training and testing data loaders, the optimizer, the scheduler, the loss function, the number of epochs, the
    device to train on, and the model to train.
"""

# Flag to include this module in CLI configurations
INCLUDE_IN_CLI_CONFIGS = True
