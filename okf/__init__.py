"""okf: the embedding-free toolkit for Open Knowledge Format bundles."""

from __future__ import annotations

__version__ = "0.1.0"
