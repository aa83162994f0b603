from .router.token_load import TokenLoad
