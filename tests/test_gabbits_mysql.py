"""The YAML stories in ``gabbits/``, in-process, on mysql."""

from gabbi.driver import test_pytest  # noqa: F401  (pytest collects it)

from tests import gabbi_runner


def pytest_generate_tests(metafunc):
    gabbi_runner.generate(metafunc, "mysql")
