import pytest

pytest_plugins = ["pytester"]


@pytest.fixture(autouse=True)
def _unlimited_output_width(monkeypatch):
    """The command line fits its text to ``COLUMNS`` (dpverify.interfaces.cli.output); a ``COLUMNS`` exported by the
    user's shell or set by pytest-xdist's workers would wrap the lines the tests read. Every test starts from a pipe's
    unlimited width; a test of the wrapping sets ``COLUMNS`` itself."""
    monkeypatch.delenv("COLUMNS", raising=False)
