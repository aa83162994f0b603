from recbole.config.configurator import Config
