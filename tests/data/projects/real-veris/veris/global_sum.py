def global_sum(A):
    # TODO

    return A
