"""Data fixtures for the YAML files, one module per API area.

Each module defines ``fixtures(api_fixture: type) -> list[type]``: subclasses
of the given ``APIFixture`` that override ``seed(app)`` to create their data
through the API (``tests.gabbi_fixtures.api_call``). Fixture class names are
what YAML files list under ``fixtures:``.
"""
