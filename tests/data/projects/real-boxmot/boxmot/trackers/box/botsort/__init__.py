"""BotSort box-tracker implementation package."""
