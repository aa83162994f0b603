# Title of the module
MODULE_TITLE = "Attack Configurations"

# Description of the module
MODULE_DESCRIPTION = """
    This module contains the configurations for the attacks that can be used to generate adversarial examples.
"""

# Flag to include this module in CLI configurations
INCLUDE_IN_CLI_CONFIGS = True
