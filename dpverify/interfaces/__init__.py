"""How users reach dpverify: the ``dpverify`` command (:mod:`~dpverify.interfaces.cli`), the pytest plugin
(:mod:`~dpverify.interfaces.pytest_plugin`) and :func:`~dpverify.interfaces.testing.assert_dp`, the verify suite
(:mod:`~dpverify.interfaces.suite`), the reports (:mod:`~dpverify.interfaces.report`, atomic files from
:mod:`~dpverify.interfaces.files`) and the paper figures (:mod:`~dpverify.interfaces.figures`).

Interfaces sit on top: they import the catalogue, the samplers and the auditor; nothing below imports them.
"""
