"""Meaning: finding what a person means, not only the words they used (see `tiers` for the design)."""

from .embeddings import (
    EmbeddingError,
    Embeddings,
    as_embedder,
    embedder_named,
    register_embedder,
    registered_embedders,
    unregister_embedder,
)
from .fallthrough import Query, Reworded, Tiers
from .tiers import Meaning, Placed

__all__ = [
    "EmbeddingError",
    "Embeddings",
    "Meaning",
    "Placed",
    "Query",
    "Reworded",
    "Tiers",
    "as_embedder",
    "embedder_named",
    "register_embedder",
    "registered_embedders",
    "unregister_embedder",
]
