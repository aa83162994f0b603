def str2bool(value: str) -> bool:
    return value.lower() in {"y", "t", "yes", "true"}
