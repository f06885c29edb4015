"""Reference samplers: every algorithm of the papers, vectorised over independent runs.

Each sampler follows :class:`dpverify.samplers.base.Sampler` and is listed in
:mod:`dpverify.samplers.registry` (``dpverify samplers list``).
"""
