from abc import ABC, abstractmethod
from math import sqrt

import numpy as np
import torch
from torch import Tensor

# Registry of all concrete Element subclasses
ELEMENT_REGISTRY: list[type["Element"]] = []


class ClassPropertyDescriptor:
    def __init__(self, fget):
        self.fget = fget

    def __get__(self, obj, cls):
        return self.fget(cls)


def classproperty(func):
    return ClassPropertyDescriptor(func)


class Element(ABC):
    """Abstract base class for isoparametric finite elements.

    Concrete element types define interpolation and integration on a reference
    (isoparametric) domain.

    Attributes:
        iso_volume (float): Measure of the reference element
            (length/area/volume).
        iso_dim (int): Reference-space dimension.
        nodes (int): Number of nodes per element.
        meshio_type (str): Mesh cell type used for meshio I/O.
        facet_type (type[Element]): Element type of a codimension-1 facet.
        facets (Tensor): Local node indices of the codimension-1 facets, i.e. the
            edges of a surface element or the faces of a volume element. Faces are
            wound so that their normal points out of the element. Line elements
            have no facets.
        edges (Tensor): Local node indices of the element edges, ordered as the
            mid-side nodes of the corresponding quadratic element.
    """

    iso_volume: float
    iso_dim: int
    nodes: int
    meshio_type: str
    facet_type: type["Element"]

    @classproperty
    def facets(cls) -> Tensor:
        """Local node indices of the codimension-1 facets.

        Raises:
            NotImplementedError: For line elements, which have no facets.
        """
        raise NotImplementedError(f"{cls.__name__} has no facets.")

    @classproperty
    def edges(cls) -> Tensor:
        """Local node indices of the element edges."""
        raise NotImplementedError(f"{cls.__name__} has no edges.")

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        # Auto-register concrete subclasses (exclude the abstract base itself)
        if cls is not Element:
            ELEMENT_REGISTRY.append(cls)

    @classmethod
    @abstractmethod
    def N(cls, xi: Tensor) -> Tensor:
        """Evaluate shape functions at reference coordinates.

        Args:
            xi (Tensor): Reference coordinates.
                *Shape:* `(iso_dim,)` or `(n_points, iso_dim)`.

        Returns:
            Tensor: Shape function values.
                *Shape:* `(nodes,)` or `(n_points, nodes)`.
        """
        pass

    @classmethod
    def B(cls, xi: Tensor) -> Tensor:
        """Evaluate reference-space derivatives of shape functions by autodiff.

        Args:
            xi (Tensor): Reference coordinates.
                *Shape:* `(iso_dim,)` or `(n_points, iso_dim)`.

        Returns:
            Tensor: Derivatives `dN/dxi`.
                *Shape:* `(iso_dim, nodes)` or `(n_points, iso_dim, nodes)`.
        """
        b = torch.func.jacrev(cls.N)
        for _ in range(xi.dim() - 1):
            b = torch.func.vmap(b)
        return b(xi).movedim(-2, -1)

    @classmethod
    def H(cls, xi: Tensor) -> Tensor:
        """Evaluate reference-space second derivatives of shape functions by autodiff.

        Args:
            xi (Tensor): Reference coordinates.
                *Shape:* `(iso_dim,)` or `(n_points, iso_dim)`.

        Returns:
            Tensor: Second derivatives `d²N/dxi_i dxi_j`.
                *Shape:* `(iso_dim, iso_dim, nodes)` or
                `(n_points, iso_dim, iso_dim, nodes)`.
        """
        h = torch.func.jacrev(torch.func.jacrev(cls.N))
        for _ in range(xi.dim() - 1):
            h = torch.func.vmap(h)
        return h(xi).movedim(-3, -1)

    @classproperty
    @abstractmethod
    def iso_coords(cls) -> Tensor:
        """Return reference coordinates of element nodes.

        Returns:
            Tensor: Node coordinates in reference space.
                *Shape:* `(nodes, iso_dim)`.
        """
        pass

    @classproperty
    @abstractmethod
    def ipoints(cls) -> Tensor:
        """Return integration points in reference coordinates.

        Returns:
            Tensor: Integration points.
                *Shape:* `(n_ip, iso_dim)`.
        """
        pass

    @classproperty
    @abstractmethod
    def iweights(cls) -> Tensor:
        """Return integration weights associated with `ipoints`.

        Returns:
            Tensor: Integration weights.
                *Shape:* `(n_ip,)`.
        """
        pass


class Bar1(Element):
    """Two-node linear line element.

    Notes:
        Node ordering:

            0 ---- 1
    """

    iso_volume = 2.0
    iso_dim = 1
    nodes = 2
    meshio_type = "line"

    @classproperty
    def iso_coords(cls) -> Tensor:
        return torch.tensor([[-1.0], [1.0]])

    @classproperty
    def edges(cls) -> Tensor:
        return torch.tensor([[0, 1]])

    @classmethod
    def N(cls, xi: Tensor) -> Tensor:
        N_1 = 1 - xi[..., 0]
        N_2 = 1 + xi[..., 0]
        return 1 / 2 * torch.stack([N_1, N_2], dim=-1)

    @classproperty
    def iweights(cls) -> Tensor:
        return torch.tensor([2.0])

    @classproperty
    def ipoints(cls) -> Tensor:
        return torch.tensor([[0.0]])


class Bar2(Bar1):
    """Three-node quadratic line element.

    Notes:
        Node ordering:

            0 -- 2 -- 1
    """

    nodes = 3
    meshio_type = "line"

    @classproperty
    def iso_coords(cls) -> Tensor:
        return torch.tensor([[-1.0], [1.0], [0.0]])

    @classproperty
    def edges(cls) -> Tensor:
        return torch.tensor([[0, 1, 2]])

    @classmethod
    def N(cls, xi: Tensor) -> Tensor:
        N_1 = 1 / 2 * xi[..., 0] * (xi[..., 0] - 1)
        N_2 = 1 / 2 * xi[..., 0] * (xi[..., 0] + 1)
        N_3 = 1 - xi[..., 0] ** 2
        return torch.stack([N_1, N_2, N_3], dim=-1)

    @classproperty
    def iweights(cls) -> Tensor:
        return torch.tensor([1.0, 1.0])

    @classproperty
    def ipoints(cls) -> Tensor:
        return torch.tensor([[-1.0 / sqrt(3.0)], [1.0 / sqrt(3.0)]])


class Tria1(Element):
    r"""Three-node linear triangle element.

    Notes:
        Node ordering:

            2
            | \
            |   \
            0 --- 1
    """

    iso_volume = 0.5
    iso_dim = 2
    nodes = 3
    meshio_type = "triangle"
    facet_type = Bar1

    @classproperty
    def iso_coords(cls) -> Tensor:
        return torch.tensor([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]])

    @classproperty
    def facets(cls) -> Tensor:
        return torch.tensor([[0, 1], [1, 2], [2, 0]])

    @classproperty
    def edges(cls) -> Tensor:
        return cls.facets

    @classmethod
    def N(cls, xi: Tensor) -> Tensor:
        N_1 = 1.0 - xi[..., 0] - xi[..., 1]
        N_2 = xi[..., 0]
        N_3 = xi[..., 1]
        return torch.stack([N_1, N_2, N_3], dim=-1)

    @classproperty
    def iweights(cls) -> Tensor:
        return torch.tensor([0.5])

    @classproperty
    def ipoints(cls) -> Tensor:
        return torch.tensor([[1.0 / 3.0, 1.0 / 3.0]])


class Tria2(Tria1):
    r"""Six-node quadratic triangle element with midside nodes.

    Notes:
        Node ordering:

            2
            | \
            5   4
            |     \
            0 - 3 - 1
    """

    nodes = 6
    meshio_type = "triangle6"
    facet_type = Bar2

    @classproperty
    def facets(cls) -> Tensor:
        return torch.tensor([[0, 1, 3], [1, 2, 4], [2, 0, 5]])

    @classproperty
    def iso_coords(cls) -> Tensor:
        return torch.tensor(
            [
                [0.0, 0.0],
                [1.0, 0.0],
                [0.0, 1.0],
                [0.5, 0.0],
                [0.5, 0.5],
                [0.0, 0.5],
            ]
        )

    @classmethod
    def N(cls, xi: Tensor) -> Tensor:
        N_1 = (1 - xi[..., 0] - xi[..., 1]) * (1 - 2 * xi[..., 0] - 2 * xi[..., 1])
        N_2 = xi[..., 0] * (2 * xi[..., 0] - 1)
        N_3 = xi[..., 1] * (2 * xi[..., 1] - 1)
        N_4 = 4 * xi[..., 0] * (1 - xi[..., 0] - xi[..., 1])
        N_5 = 4 * xi[..., 0] * xi[..., 1]
        N_6 = 4 * xi[..., 1] * (1 - xi[..., 0] - xi[..., 1])
        return torch.stack([N_1, N_2, N_3, N_4, N_5, N_6], dim=-1)

    @classproperty
    def iweights(cls) -> Tensor:
        return torch.tensor([1.0 / 6.0, 1.0 / 6.0, 1.0 / 6.0])

    @classproperty
    def ipoints(cls) -> Tensor:
        return torch.tensor([[1 / 6, 1 / 6], [2 / 3, 1 / 6], [1 / 6, 2 / 3]])


class Quad1(Element):
    """Four-node bilinear quadrilateral element.

    Notes:
        Node ordering:

            3 ---- 2
            |      |
            |      |
            0 ---- 1
    """

    iso_volume = 4.0
    iso_dim = 2
    nodes = 4
    meshio_type = "quad"
    facet_type = Bar1

    @classproperty
    def iso_coords(cls) -> Tensor:
        return torch.tensor([[-1.0, -1.0], [1.0, -1.0], [1.0, 1.0], [-1.0, 1.0]])

    @classproperty
    def facets(cls) -> Tensor:
        return torch.tensor([[0, 1], [1, 2], [2, 3], [3, 0]])

    @classproperty
    def edges(cls) -> Tensor:
        return cls.facets

    @classmethod
    def N(cls, xi: Tensor) -> Tensor:
        N_1 = (1.0 - xi[..., 0]) * (1.0 - xi[..., 1])
        N_2 = (1.0 + xi[..., 0]) * (1.0 - xi[..., 1])
        N_3 = (1.0 + xi[..., 0]) * (1.0 + xi[..., 1])
        N_4 = (1.0 - xi[..., 0]) * (1.0 + xi[..., 1])
        return 0.25 * torch.stack([N_1, N_2, N_3, N_4], dim=-1)

    @classproperty
    def iweights(cls) -> Tensor:
        return torch.tensor([1.0, 1.0, 1.0, 1.0])

    @classproperty
    def ipoints(cls) -> Tensor:
        return torch.tensor(
            [
                [xi_1 / sqrt(3.0), xi_2 / sqrt(3.0)]
                for xi_2 in [-1, 1]
                for xi_1 in [-1, 1]
            ]
        )


class Quad2(Quad1):
    """Eight-node quadratic quadrilateral element with midside nodes.

    Notes:
        Node ordering:

            3 -- 6 -- 2
            |         |
            7         5
            |         |
            0 -- 4 -- 1
    """

    nodes = 8
    meshio_type = "quad8"
    facet_type = Bar2

    @classproperty
    def facets(cls) -> Tensor:
        return torch.tensor([[0, 1, 4], [1, 2, 5], [2, 3, 6], [3, 0, 7]])

    @classproperty
    def iso_coords(cls) -> Tensor:
        return torch.tensor(
            [
                # 4 corner nodes
                [-1.0, -1.0],
                [1.0, -1.0],
                [1.0, 1.0],
                [-1.0, 1.0],
                # 4 midside nodes
                [0.0, -1.0],
                [1.0, 0.0],
                [0.0, 1.0],
                [-1.0, 0.0],
            ]
        )

    @classmethod
    def N(cls, xi: Tensor) -> Tensor:
        N_1 = -(1 - xi[..., 0]) * (1 - xi[..., 1]) * (1 + xi[..., 0] + xi[..., 1])
        N_2 = -(1 + xi[..., 0]) * (1 - xi[..., 1]) * (1 - xi[..., 0] + xi[..., 1])
        N_3 = -(1 + xi[..., 0]) * (1 + xi[..., 1]) * (1 - xi[..., 0] - xi[..., 1])
        N_4 = -(1 - xi[..., 0]) * (1 + xi[..., 1]) * (1 + xi[..., 0] - xi[..., 1])
        N_5 = 2 * (1 - xi[..., 0]) * (1 - xi[..., 1]) * (1 + xi[..., 0])
        N_6 = 2 * (1 + xi[..., 0]) * (1 - xi[..., 1]) * (1 + xi[..., 1])
        N_7 = 2 * (1 - xi[..., 0]) * (1 + xi[..., 1]) * (1 + xi[..., 0])
        N_8 = 2 * (1 - xi[..., 0]) * (1 - xi[..., 1]) * (1 + xi[..., 1])
        return 0.25 * torch.stack([N_1, N_2, N_3, N_4, N_5, N_6, N_7, N_8], dim=-1)

    @classproperty
    def iweights(cls) -> Tensor:
        return torch.tensor([1.0, 1.0, 1.0, 1.0])

    @classproperty
    def ipoints(cls) -> Tensor:
        return torch.tensor(
            [
                [xi_1 / sqrt(3.0), xi_2 / sqrt(3.0)]
                for xi_2 in [-1, 1]
                for xi_1 in [-1, 1]
            ]
        )


class Tetra1(Element):
    r"""Four-node linear tetrahedral element.

    Notes:
        Node ordering:

                3
               /|\
              / | \
             /  |  \
            0---|---1
             \  |  /
              \ | /
               \|/
                2
    """

    iso_volume = 1.0 / 6.0
    iso_dim = 3
    nodes = 4
    meshio_type = "tetra"
    facet_type = Tria1

    @classproperty
    def iso_coords(cls) -> Tensor:
        return torch.tensor(
            [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
        )

    @classproperty
    def facets(cls) -> Tensor:
        return torch.tensor([[0, 2, 1], [0, 1, 3], [1, 2, 3], [0, 3, 2]])

    @classproperty
    def edges(cls) -> Tensor:
        return torch.tensor([[0, 1], [1, 2], [0, 2], [3, 0], [1, 3], [2, 3]])

    @classmethod
    def N(cls, xi: Tensor) -> Tensor:
        N_1 = 1.0 - xi[..., 0] - xi[..., 1] - xi[..., 2]
        N_2 = xi[..., 0]
        N_3 = xi[..., 1]
        N_4 = xi[..., 2]
        return torch.stack([N_1, N_2, N_3, N_4], dim=-1)

    @classproperty
    def iweights(cls) -> Tensor:
        return torch.tensor([1.0 / 6.0])

    @classproperty
    def ipoints(cls) -> Tensor:
        return torch.tensor([[0.25, 0.25, 0.25]])


class Tetra2(Tetra1):
    r"""Ten-node quadratic tetrahedral element with midside nodes.

    Notes:
        Node ordering:

                3
               /|\
             7/ | \8
             /  |  \
            0---4---1
             \  |  /
            6 \ | / 5
               \|/
                2
    """

    nodes = 10
    meshio_type = "tetra10"
    facet_type = Tria2

    @classproperty
    def facets(cls) -> Tensor:
        return torch.tensor(
            [
                [0, 2, 1, 6, 5, 4],
                [0, 1, 3, 4, 8, 7],
                [1, 2, 3, 5, 9, 8],
                [0, 3, 2, 7, 9, 6],
            ]
        )

    @classproperty
    def edges(cls) -> Tensor:
        return torch.tensor(
            [[0, 1, 4], [1, 2, 5], [0, 2, 6], [3, 0, 7], [1, 3, 8], [2, 3, 9]]
        )

    @classproperty
    def iso_coords(cls) -> Tensor:
        return torch.tensor(
            [
                # 4 corner nodes
                [0.0, 0.0, 0.0],
                [1.0, 0.0, 0.0],
                [0.0, 1.0, 0.0],
                [0.0, 0.0, 1.0],
                # 6 midside nodes
                [0.5, 0.0, 0.0],
                [0.5, 0.5, 0.0],
                [0.0, 0.5, 0.0],
                [0.0, 0.0, 0.5],
                [0.5, 0.0, 0.5],
                [0.0, 0.5, 0.5],
            ]
        )

    @classmethod
    def N(cls, xi: Tensor) -> Tensor:
        N_1 = (1.0 - xi[..., 0] - xi[..., 1] - xi[..., 2]) * (
            2 * (1.0 - xi[..., 0] - xi[..., 1] - xi[..., 2]) - 1
        )
        N_2 = xi[..., 0] * (2 * xi[..., 0] - 1)
        N_3 = xi[..., 1] * (2 * xi[..., 1] - 1)
        N_4 = xi[..., 2] * (2 * xi[..., 2] - 1)
        N_5 = 4 * xi[..., 0] * (1 - xi[..., 0] - xi[..., 1] - xi[..., 2])
        N_6 = 4 * xi[..., 0] * xi[..., 1]
        N_7 = 4 * xi[..., 1] * (1 - xi[..., 0] - xi[..., 1] - xi[..., 2])
        N_8 = 4 * xi[..., 2] * (1 - xi[..., 0] - xi[..., 1] - xi[..., 2])
        N_9 = 4 * xi[..., 0] * xi[..., 2]
        N_10 = 4 * xi[..., 1] * xi[..., 2]
        return torch.stack([N_1, N_2, N_3, N_4, N_5, N_6, N_7, N_8, N_9, N_10], dim=-1)

    @classproperty
    def iweights(cls) -> Tensor:
        return torch.tensor([0.041666667, 0.041666667, 0.041666667, 0.041666667])

    @classproperty
    def ipoints(cls) -> Tensor:
        return torch.tensor(
            [
                [0.58541020, 0.13819660, 0.13819660],
                [0.13819660, 0.58541020, 0.13819660],
                [0.13819660, 0.13819660, 0.58541020],
                [0.13819660, 0.13819660, 0.13819660],
            ]
        )


class Hexa1(Element):
    r"""Eight-node trilinear hexahedral element.

    Notes:
        Node ordering:

              7 ---- 6
             /|     /|
            4 ---- 5 |
            | 3 --|- 2
            |/     |/
            0 ---- 1
    """

    iso_volume = 8.0
    iso_dim = 3
    nodes = 8
    meshio_type = "hexahedron"
    facet_type = Quad1

    @classproperty
    def facets(cls) -> Tensor:
        return torch.tensor(
            [
                [0, 3, 2, 1],
                [4, 5, 6, 7],
                [0, 1, 5, 4],
                [1, 2, 6, 5],
                [2, 3, 7, 6],
                [3, 0, 4, 7],
            ]
        )

    @classproperty
    def edges(cls) -> Tensor:
        return torch.tensor(
            [
                [0, 1],
                [1, 2],
                [2, 3],
                [3, 0],
                [4, 5],
                [5, 6],
                [6, 7],
                [7, 4],
                [0, 4],
                [1, 5],
                [2, 6],
                [3, 7],
            ]
        )

    @classproperty
    def iso_coords(cls) -> Tensor:
        return torch.tensor(
            [
                [-1.0, -1.0, -1.0],
                [1.0, -1.0, -1.0],
                [1.0, 1.0, -1.0],
                [-1.0, 1.0, -1.0],
                [-1.0, -1.0, 1.0],
                [1.0, -1.0, 1.0],
                [1.0, 1.0, 1.0],
                [-1.0, 1.0, 1.0],
            ]
        )

    @classproperty
    def iweights(cls) -> Tensor:
        return torch.tensor([1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0])

    @classproperty
    def ipoints(cls) -> Tensor:
        return torch.tensor(
            [
                [xi_1 / sqrt(3.0), xi_2 / sqrt(3.0), xi_3 / sqrt(3.0)]
                for xi_3 in [-1.0, 1.0]
                for xi_2 in [-1.0, 1.0]
                for xi_1 in [-1.0, 1.0]
            ]
        )

    @classmethod
    def N(cls, xi: Tensor) -> Tensor:
        N_1 = (1.0 - xi[..., 0]) * (1.0 - xi[..., 1]) * (1.0 - xi[..., 2])
        N_2 = (1.0 + xi[..., 0]) * (1.0 - xi[..., 1]) * (1.0 - xi[..., 2])
        N_3 = (1.0 + xi[..., 0]) * (1.0 + xi[..., 1]) * (1.0 - xi[..., 2])
        N_4 = (1.0 - xi[..., 0]) * (1.0 + xi[..., 1]) * (1.0 - xi[..., 2])
        N_5 = (1.0 - xi[..., 0]) * (1.0 - xi[..., 1]) * (1.0 + xi[..., 2])
        N_6 = (1.0 + xi[..., 0]) * (1.0 - xi[..., 1]) * (1.0 + xi[..., 2])
        N_7 = (1.0 + xi[..., 0]) * (1.0 + xi[..., 1]) * (1.0 + xi[..., 2])
        N_8 = (1.0 - xi[..., 0]) * (1.0 + xi[..., 1]) * (1.0 + xi[..., 2])
        return 0.125 * torch.stack([N_1, N_2, N_3, N_4, N_5, N_6, N_7, N_8], dim=-1)


class Hexa2(Hexa1):
    r"""Twenty-node quadratic serendipity hexahedral element.

    Notes:
        Node ordering:

                7 -- 14 --  6
               /|          /|
             15 19       13 18
             /  |        /  |
            4 -- 12 -- 5    |
            |   3 -- 10 |-- 2
            16 /        17 /
            | 11        | 9
            |/          |/
            0 --  8 --  1
    """

    iso_dim = 3
    nodes = 20
    meshio_type = "hexahedron20"
    facet_type = Quad2

    @classproperty
    def facets(cls) -> Tensor:
        return torch.tensor(
            [
                [0, 3, 2, 1, 11, 10, 9, 8],
                [4, 5, 6, 7, 12, 13, 14, 15],
                [0, 1, 5, 4, 8, 17, 12, 16],
                [1, 2, 6, 5, 9, 18, 13, 17],
                [2, 3, 7, 6, 10, 19, 14, 18],
                [3, 0, 4, 7, 11, 16, 15, 19],
            ]
        )

    @classproperty
    def edges(cls) -> Tensor:
        return torch.tensor(
            [
                [0, 1, 8],
                [1, 2, 9],
                [2, 3, 10],
                [3, 0, 11],
                [4, 5, 12],
                [5, 6, 13],
                [6, 7, 14],
                [7, 4, 15],
                [0, 4, 16],
                [1, 5, 17],
                [2, 6, 18],
                [3, 7, 19],
            ]
        )

    @classproperty
    def iso_coords(cls) -> Tensor:
        return torch.tensor(
            [
                # 8 corner nodes
                [-1.0, -1.0, -1.0],
                [1.0, -1.0, -1.0],
                [1.0, 1.0, -1.0],
                [-1.0, 1.0, -1.0],
                [-1.0, -1.0, 1.0],
                [1.0, -1.0, 1.0],
                [1.0, 1.0, 1.0],
                [-1.0, 1.0, 1.0],
                # 12 midside nodes
                [0.0, -1.0, -1.0],
                [1.0, 0.0, -1.0],
                [0.0, 1.0, -1.0],
                [-1.0, 0.0, -1.0],
                [0.0, -1.0, 1.0],
                [1.0, 0.0, 1.0],
                [0.0, 1.0, 1.0],
                [-1.0, 0.0, 1.0],
                [-1.0, -1.0, 0.0],
                [1.0, -1.0, 0.0],
                [1.0, 1.0, 0.0],
                [-1.0, 1.0, 0.0],
            ]
        )

    @classmethod
    def N(cls, xi: Tensor) -> Tensor:
        N_1 = (
            (1 - xi[..., 0])
            * (1 - xi[..., 1])
            * (1 - xi[..., 2])
            * (-xi[..., 0] - xi[..., 1] - xi[..., 2] - 2)
        )
        N_2 = (
            (1 + xi[..., 0])
            * (1 - xi[..., 1])
            * (1 - xi[..., 2])
            * (+xi[..., 0] - xi[..., 1] - xi[..., 2] - 2)
        )
        N_3 = (
            (1 + xi[..., 0])
            * (1 + xi[..., 1])
            * (1 - xi[..., 2])
            * (+xi[..., 0] + xi[..., 1] - xi[..., 2] - 2)
        )
        N_4 = (
            (1 - xi[..., 0])
            * (1 + xi[..., 1])
            * (1 - xi[..., 2])
            * (-xi[..., 0] + xi[..., 1] - xi[..., 2] - 2)
        )

        N_5 = (
            (1 - xi[..., 0])
            * (1 - xi[..., 1])
            * (1 + xi[..., 2])
            * (-xi[..., 0] - xi[..., 1] + xi[..., 2] - 2)
        )
        N_6 = (
            (1 + xi[..., 0])
            * (1 - xi[..., 1])
            * (1 + xi[..., 2])
            * (+xi[..., 0] - xi[..., 1] + xi[..., 2] - 2)
        )
        N_7 = (
            (1 + xi[..., 0])
            * (1 + xi[..., 1])
            * (1 + xi[..., 2])
            * (+xi[..., 0] + xi[..., 1] + xi[..., 2] - 2)
        )
        N_8 = (
            (1 - xi[..., 0])
            * (1 + xi[..., 1])
            * (1 + xi[..., 2])
            * (-xi[..., 0] + xi[..., 1] + xi[..., 2] - 2)
        )
        N_9 = 2 * (1 - xi[..., 0] ** 2) * (1 - xi[..., 1]) * (1 - xi[..., 2])
        N_10 = 2 * (1 + xi[..., 0]) * (1 - xi[..., 1] ** 2) * (1 - xi[..., 2])
        N_11 = 2 * (1 - xi[..., 0] ** 2) * (1 + xi[..., 1]) * (1 - xi[..., 2])
        N_12 = 2 * (1 - xi[..., 0]) * (1 - xi[..., 1] ** 2) * (1 - xi[..., 2])
        N_13 = 2 * (1 - xi[..., 0] ** 2) * (1 - xi[..., 1]) * (1 + xi[..., 2])
        N_14 = 2 * (1 + xi[..., 0]) * (1 - xi[..., 1] ** 2) * (1 + xi[..., 2])
        N_15 = 2 * (1 - xi[..., 0] ** 2) * (1 + xi[..., 1]) * (1 + xi[..., 2])
        N_16 = 2 * (1 - xi[..., 0]) * (1 - xi[..., 1] ** 2) * (1 + xi[..., 2])
        N_17 = 2 * (1 - xi[..., 0]) * (1 - xi[..., 1]) * (1 - xi[..., 2] ** 2)
        N_18 = 2 * (1 + xi[..., 0]) * (1 - xi[..., 1]) * (1 - xi[..., 2] ** 2)
        N_19 = 2 * (1 + xi[..., 0]) * (1 + xi[..., 1]) * (1 - xi[..., 2] ** 2)
        N_20 = 2 * (1 - xi[..., 0]) * (1 + xi[..., 1]) * (1 - xi[..., 2] ** 2)
        return 0.125 * torch.stack(
            [
                N_1,
                N_2,
                N_3,
                N_4,
                N_5,
                N_6,
                N_7,
                N_8,
                N_9,
                N_10,
                N_11,
                N_12,
                N_13,
                N_14,
                N_15,
                N_16,
                N_17,
                N_18,
                N_19,
                N_20,
            ],
            dim=-1,
        )

    @classproperty
    def iweights(cls) -> Tensor:
        return torch.tensor(
            [
                1.0,
                1.0,
                1.0,
                1.0,
                1.0,
                1.0,
                1.0,
                1.0,
            ]
        )

    @classproperty
    def ipoints(cls) -> Tensor:
        return torch.tensor(
            [
                [xi_1 / sqrt(3.0), xi_2 / sqrt(3.0), xi_3 / sqrt(3.0)]
                for xi_3 in [-1.0, 1.0]
                for xi_2 in [-1.0, 1.0]
                for xi_1 in [-1.0, 1.0]
            ]
        )


def linear_etype(nodes: Tensor, elements: Tensor) -> type[Element]:
    """Infer the linear element type from a mesh.

    Args:
        nodes (Tensor): Nodal coordinates.
            *Shape:* `(n_nodes, dim)`.
        elements (Tensor): Connectivity of linear elements.
            *Shape:* `(n_elem, n_nodes_per_elem)`.

    Returns:
        etype (type[Element]): The matching linear element type.
    """
    n_nod, dim = elements.shape[1], nodes.shape[1]
    if n_nod == 2:
        return Bar1
    elif n_nod == 3 and dim == 2:
        return Tria1
    elif n_nod == 4 and dim == 2:
        return Quad1
    elif n_nod == 4 and dim == 3:
        return Tetra1
    elif n_nod == 8 and dim == 3:
        return Hexa1
    else:
        raise ValueError(
            "The element type is not supported. Maybe the element is already quadratic?"
        )


def linear_to_quadratic(nodes: Tensor, elements: Tensor) -> tuple[Tensor, Tensor]:
    """Convert supported linear meshes to quadratic meshes.

    Supported topologies are:

    - 2-node bars to 3-node bars
    - 3-node triangles to 6-node triangles
    - 4-node quadrilaterals to 8-node quadrilaterals
    - 4-node tetrahedra to 10-node tetrahedra
    - 8-node hexahedra to 20-node hexahedra

    New nodes are created at edge midpoints and appended to `nodes`.

    Args:
        nodes (Tensor): Nodal coordinates.
            *Shape:* `(n_nodes, dim)`.
        elements (Tensor): Connectivity of linear elements.
            *Shape:* `(n_elem, n_nodes_per_elem)`.

    Returns:
        new_nodes (Tensor): Extended nodal coordinates with edge midpoints.
            *Shape:* `(n_nodes + n_unique_edges, dim)`.
        new_elements (Tensor): Quadratic element connectivity.
            *Shape:* `(n_elem, n_quadratic_nodes_per_elem)`.
    """
    edges = linear_etype(nodes, elements).edges

    # Vectorize edges for all elements and sort each pair with increasing node IDs
    edge_vector = elements[:, edges].reshape(-1, 2)
    edge_vector, _ = torch.sort(edge_vector, dim=1)

    # Find unique edges and get the inverse mapping
    if edge_vector.device.type == "cuda":
        # Default torch implementation for CUDA
        unique_edges, inv_indices = torch.unique(
            edge_vector, dim=0, return_inverse=True
        )
    else:
        # Numpy implementation for CPU (breaks gradient flow, but should not be needed)
        edge_vector_np = edge_vector.numpy()
        dt = np.dtype((np.void, edge_vector_np.dtype.itemsize * edge_vector.shape[1]))
        b = np.ascontiguousarray(edge_vector).view(dt)
        _, unique_indices, inv_indices_np = np.unique(
            b, return_index=True, return_inverse=True
        )
        unique_edges = edge_vector[unique_indices]
        inv_indices = torch.as_tensor(inv_indices_np)

    # Compute nodes
    mid_node_coords = (nodes[unique_edges[:, 0]] + nodes[unique_edges[:, 1]]) / 2.0
    new_nodes = torch.cat([nodes, mid_node_coords], dim=0)

    # Compute elements
    mid_node_map = inv_indices.view(elements.shape[0], -1) + nodes.shape[0]
    new_elements = torch.cat([elements, mid_node_map], dim=1)

    return new_nodes, new_elements
