"""Regression checks for real DP libraries (diffprivlib, OpenDP, Opacus) audited through their public APIs.

:mod:`.base` defines what is audited (:class:`~dpverify.libraries.base.LibraryFunction`); one module per library
builds its catalogue of functions; the library is imported only when its catalogue is asked for.
"""
from dpverify.libraries.base import ADJACENCIES, Claimed, LibraryFunction

__all__ = ["Claimed", "LibraryFunction", "ADJACENCIES"]
