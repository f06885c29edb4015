"""Regression checks for real DP libraries (diffprivlib, OpenDP, Opacus) audited through their public APIs.

:mod:`.base` defines what is audited (:class:`~dpverify.libraries.base.LibraryFunction`; a maintainer's own function
in a few lines with :meth:`~dpverify.libraries.base.LibraryFunction.from_release`); :mod:`.search` builds candidate
adjacent pairs and runs the budgeted worst-pair search; :mod:`.runner` runs a catalogue (search, final audit,
confirmation) into report rows; one module per library builds its catalogue, and the library is imported only when
its catalogue is asked for (``dpverify audit-library LIBRARY``; docs/libraries.md).
"""
from dpverify.libraries.base import ADJACENCIES, Claimed, LabelledPair, LibraryFunction

__all__ = ["Claimed", "LibraryFunction", "LabelledPair", "ADJACENCIES"]
