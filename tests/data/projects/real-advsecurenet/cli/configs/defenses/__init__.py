# Title of the module
MODULE_TITLE = "Defense Configurations"

# Description of the module
MODULE_DESCRIPTION = """
    This module contains the configurations for the defenses that can be used to defend against adversarial examples.
    Currently, the defenses include the following:
        - Adversarial Training
"""

# Flag to include this module in CLI configurations
INCLUDE_IN_CLI_CONFIGS = True
