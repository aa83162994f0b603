"""
This file describes the different spaces that SAGESim agents
may exist in. Space is important in calculating proximity.
Promixity is important in approximating interactions.
Intractions are important when binning agents into
workers, which is the crux of load balancing...

"""

from typing import List, Any, Union


class Space:
    """
    Abstract class for space

    """

    def __init__(
        self, neighbor_compute_func, locations_max_dims, locations_defaults
    ) -> None:
        """
        self_agent_adj_list hold
        """
        self._locations: List[Any] = []
        self._neighbor_compute_func = neighbor_compute_func
        self._locations_max_dims = locations_max_dims
        self._locations_defaults = locations_defaults
        self._agent_factory = None

    def get_location(self, agent_id: int) -> set:
        """Returns agents location"""
        return self._locations[agent_id]

    def add_agent(self, agent: int) -> None:
        """Adds agent to space"""
        self._locations = None

    def get_neighbors(self, agent_id: int) -> set:
        """Returns agents neighbors"""
        return self._neighbor_compute_func(self._locations, agent_id)

    ###NOTE: we need a function for load balancing


def _network_space_compute_neighbors(agent_locations):
    agents_current_neighbors = agent_locations
    return agents_current_neighbors


class NetworkSpace(Space):
    """Defines a NetworkSpace"""

    def __init__(self, ordered=False) -> None:
        """
        Uses super()._neighbors to hold adj list of the network

        Args:
            ordered (bool): If True, neighbors are stored as lists with insertion order preserved.
                           If False (default), neighbors are stored as sets (unordered, no duplicates).
                           Use ordered=True when neighbor order matters (e.g., directional relationships).
        """
        locations_max_dims = [0]
        locations_defaults = []
        self._ordered = ordered
        self._sparse = False
        # Parallel set for O(1) duplicate checks when ordered=True
        if ordered:
            self._locations_set = {}
        super().__init__(
            _network_space_compute_neighbors, locations_max_dims, locations_defaults
        )

    def add_local_agents(self, agent_ids) -> None:
        """Create location containers for specific local agents only.

        In this mode, _locations is a dict {agent_id: [neighbors]} instead of a
        list indexed by global agent ID. Only local agents get entries — remote
        agents referenced as neighbors don't need their own neighbor lists.

        :param agent_ids: Iterable of local agent IDs to create containers for.
        """
        self._sparse = True
        if self._ordered:
            self._locations = {int(aid): [] for aid in agent_ids}
            self._locations_set = {int(aid): set() for aid in agent_ids}
        else:
            self._locations = {int(aid): set() for aid in agent_ids}

    def set_prebuilt_csr(self, neighbor_offsets, neighbor_values_ids) -> None:
        """Accept an already-built local neighbor CSR instead of per-agent lists.

        Columnar bulk build (Model.build_from_local_columns) hands the whole
        rank's directed neighbor structure as two flat arrays — the same CSR that
        add_local_agents + bulk_connect would otherwise produce, but constructed
        with vectorized numpy from the source columns. Storing it here lets the
        model skip both the O(num_agents) empty-container allocation and the
        ragged-list → CSR transpose in setup, which is the whole point of the
        columnar path (no per-agent Python objects).

        The rows are in LOCAL-INDEX order (row i = the i-th local agent in the
        order handed to build_from_local_columns) and the values are GLOBAL agent
        ids (the -1 external-input sentinel is allowed), matching what
        build_csr_from_ragged emits for the record path.

        :param neighbor_offsets: numpy int32 array, length num_local_agents + 1.
        :param neighbor_values_ids: numpy int32 array, flat neighbor global ids.
        """
        self._sparse = True
        # No per-agent containers: the CSR is authoritative. Keep the dicts empty
        # so get_location()/connect_agents() fail loudly rather than silently
        # returning wrong (empty) neighbors for a prebuilt-CSR model.
        self._locations = {}
        if self._ordered:
            self._locations_set = {}
        self._prebuilt_csr_offsets = neighbor_offsets
        self._prebuilt_csr_values = neighbor_values_ids

    def add_agent(self, agent: int) -> None:
        if self._sparse:
            # In sparse mode, container already exists from add_local_agents().
            # Just link the locations property to the agent's property tensor.
            self._agent_factory.set_agent_property_value(
                "locations",
                agent,
                self._locations[agent],
            )
        else:
            # Original behavior
            neighbor_container = [] if self._ordered else set()
            self._locations.append(neighbor_container)
            if self._ordered:
                self._locations_set[agent] = set()
            self._agent_factory.set_agent_property_value(
                "locations",
                agent,
                self._locations[agent],
            )

    def get_location(self, agent_id: int) -> Union[List[int], set]:
        """Returns agent's location (neighbors as list if ordered=True, set if ordered=False)"""
        return self._locations[agent_id]

    def get_neighbors(self, agent_id: int) -> Union[List[int], set]:
        """Returns agent's neighbors (list if ordered=True, set if ordered=False)"""
        return self._neighbor_compute_func(self._locations, agent_id)

    def connect_agents(
        self, agent_0: int, agent_1: int, directed: bool = False
    ) -> None:
        agent_0 = int(agent_0)
        agent_1 = int(agent_1)

        if self._ordered:
            # For ordered neighbors, use parallel set for O(1) duplicate check
            if agent_1 not in self._locations_set[agent_0]:
                self._locations_set[agent_0].add(agent_1)
                self._locations[agent_0].append(agent_1)
            if not directed and agent_0 not in self._locations_set[agent_1]:
                self._locations_set[agent_1].add(agent_0)
                self._locations[agent_1].append(agent_0)
        else:
            # For unordered neighbors, add to set (automatically prevents duplicates)
            self._locations[agent_0].add(agent_1)
            if not directed:
                self._locations[agent_1].add(agent_0)

    def bulk_connect(self, adjacency) -> None:
        """Bulk-register neighbor lists from a prebuilt adjacency map.

        The bulk form of connect_agents: equivalent to calling
        connect_agents(a, b, directed=True) for every neighbor b in
        adjacency[a], but assigns each agent's whole neighbor list in ONE pass
        instead of one duplicate-checked append per connection. For an agent
        population with C total connections this avoids C Python-level
        .append()/.add() calls; it is the bulk path used by build_from_local_data.

        The adjacency dict is taken as ALREADY-DIRECTED: exactly what is written
        is what you get (no reverse connections are added). Callers that want
        undirected behavior must list a neighbor on both agents.

        Only local agents (those given to add_local_agents) may be keys; a
        non-local id that appears only as a *neighbor* (value) is fine and gets
        no neighbor container of its own — matching connect_agents, which writes
        only _locations[agent_0]. A non-local id used as a KEY is an error.

        Containers created by add_local_agents are mutated IN PLACE (not
        rebound): build_from_local_data captures the container object into the
        agent's "locations" property tensor before connections are added, so the
        list/set identity must be preserved.

        :param adjacency: dict {agent_id: iterable_of_neighbor_ids}.
        """
        if not self._sparse:
            raise RuntimeError(
                "bulk_connect requires sparse mode; call add_local_agents first."
            )
        for agent_a, neighbors in adjacency.items():
            agent_a = int(agent_a)
            if agent_a not in self._locations:
                raise KeyError(
                    f"bulk_connect: agent {agent_a} is not a local agent "
                    f"(only local agents may be adjacency keys)."
                )
            if self._ordered:
                seen = self._locations_set[agent_a]
                bucket = self._locations[agent_a]
                for b in neighbors:
                    b = int(b)
                    if b not in seen:
                        seen.add(b)
                        bucket.append(b)
            else:
                self._locations[agent_a].update(int(b) for b in neighbors)

    def disconnect_agents(
        self, agent_0: int, agent_1: int, directed: bool = False
    ) -> None:
        agent_0 = int(agent_0)
        agent_1 = int(agent_1)

        if self._ordered:
            # For ordered neighbors (list), remove by value; keep set in sync
            if agent_1 in self._locations_set[agent_0]:
                self._locations_set[agent_0].discard(agent_1)
                self._locations[agent_0].remove(agent_1)
            if not directed and agent_0 in self._locations_set[agent_1]:
                self._locations_set[agent_1].discard(agent_0)
                self._locations[agent_1].remove(agent_0)
        else:
            # For unordered neighbors (set), remove directly
            self._locations[agent_0].discard(agent_1)  # discard won't raise error if not present
            if not directed:
                self._locations[agent_1].discard(agent_0)

    ###NOTE: we need a function for load balancing


if __name__ == "__main__":
    ns = NetworkSpace()
    for i in range(6):
        ns.add_agent(i)

    for i in [1, 3, 4]:
        ns.connect_agents(0, i)
