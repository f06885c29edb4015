"""The sampler registry: ``dpverify samplers list`` prints one row per entry.

Sampler modules register their classes with :func:`register`; :func:`all_samplers` imports
every module in :data:`SAMPLER_MODULES` first.
"""
from __future__ import annotations

import difflib
import importlib

from dpverify.samplers.base import OUTPUT_KINDS, Sampler

__all__ = ["SAMPLER_MODULES", "register", "get", "all_samplers", "make"]

#: Modules that define samplers (each registers its classes on import).
SAMPLER_MODULES: tuple[str, ...] = (
    "baselines",
    "ops",
    "ops_mcmc",
    "sgld",
    "sghmc",
    "sgnht",
    "sgfs",
    "hybrid",
    "ula",
    "foulds",
    "mc_estimator",
)

_REGISTRY: dict[str, type[Sampler]] = {}
_loaded = False


def register(cls: type[Sampler]) -> type[Sampler]:
    """Class decorator: add a sampler class under its ``id``."""
    for attr in ("id", "theorems", "output"):
        if not hasattr(cls, attr):
            raise TypeError(f"sampler class {cls.__name__} must define {attr!r}")
    if cls.output not in OUTPUT_KINDS:
        raise ValueError(f"{cls.__name__}.output must be one of {OUTPUT_KINDS}; got {cls.output!r}")
    if cls.id in _REGISTRY and _REGISTRY[cls.id] is not cls:
        raise ValueError(f"sampler ID {cls.id!r} is already registered")
    _REGISTRY[cls.id] = cls
    return cls


def _load() -> None:
    global _loaded
    if _loaded:
        return
    for name in SAMPLER_MODULES:
        module = f"dpverify.samplers.{name}"
        try:
            importlib.import_module(module)
        except ModuleNotFoundError as exc:  # module not written yet
            if exc.name != module:
                raise
    _loaded = True


def all_samplers() -> list[type[Sampler]]:
    _load()
    return list(_REGISTRY.values())


def get(sampler_id: str) -> type[Sampler]:
    _load()
    try:
        return _REGISTRY[sampler_id]
    except KeyError:
        close = difflib.get_close_matches(sampler_id, list(_REGISTRY), n=3, cutoff=0.4)
        hint = f"; did you mean {', '.join(close)}?" if close else "; see `dpverify samplers list`"
        raise KeyError(f"no sampler with ID {sampler_id!r}{hint}") from None


def make(sampler_id: str, **params) -> Sampler:
    """Build a sampler by ID with its parameters."""
    return get(sampler_id)(**params)
