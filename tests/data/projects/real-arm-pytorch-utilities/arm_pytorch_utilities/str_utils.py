def f2s(num):
    if num is None:
        return "None"
    return str(num).replace('.', '_')
