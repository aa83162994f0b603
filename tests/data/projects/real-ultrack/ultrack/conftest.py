from ultrack.utils.test_utils import *  # noqa

collect_ignore = ["widgets/"]
