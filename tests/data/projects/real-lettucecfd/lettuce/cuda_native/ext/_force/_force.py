class NativeForce:
    pass
