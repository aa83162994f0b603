# Title of the module
MODULE_TITLE = "Base Adversarial Attack Configurations"

# Description of the module
MODULE_DESCRIPTION = """
    Base adversarial attack configurations. These configurations are used to define the attack parameters. They can be used in the adversarial training, evaluation, and attack modules.
"""

# Flag to include this module in CLI configurations
INCLUDE_IN_CLI_CONFIGS = True
