def interpolant(t):
    return t*t*t*(t*(t*6 - 15) + 10)