#####################################################
# Copyright (c) Xuanyi Dong [GitHub D-X-Y], 2021.05 #
#####################################################
# An Automated Deep Learning Package to support     #
# research activities.                              #
#####################################################


def version():
    versions = ["0.9.9"]  # 2021.06.01
    versions = ["1.0.0"]  # 2021.08.14
    return versions[-1]
