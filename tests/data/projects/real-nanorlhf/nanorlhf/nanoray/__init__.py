from nanorlhf.nanoray.api.initialization import (
    init,
    shutdown,
    NodeConfig,
    NANORAY_BASE_PORT,
)
from nanorlhf.nanoray.api.remote import remote
from nanorlhf.nanoray.api.session import (
    get,
    put,
    drain,
    submit,
    create_placement_group,
    remove_placement_group,
    PlacementStrategy,
    Bundle,
)
