
def append_new_results(prev_samples, prev_G_losses, prev_D_losses, new_samples, new_G_losses, new_D_losses):
    """
    TODO: use this at beginning of training when dicts are not empty...
    :param prev_samples:
    :param prev_G_losses:
    :param prev_D_losses:
    :param new_samples:
    :param new_G_losses:
    :param new_D_losses:
    :return:
    """
    pass

    def _append(prev_d, new_d):
        pass